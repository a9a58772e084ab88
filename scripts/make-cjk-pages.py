#!/usr/bin/env python3
"""Writes tests/data/cjk: labelled Chinese and Japanese pages in the WCXB
layout (html/ID.html, ground-truth/ID.json), for extraction tests on text
without spaces between words. The pages are made up; the labels are exact."""
import json, os, html

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "cjk")
PAGES = [
    ("zh1", "zh", "城市新闻网", "港口大桥维修后重新通车", [
        "经过八个月的维修，港口大桥于周一清晨重新向车辆开放，工程耗资超过四千万元。",
        "工程师更换了锈蚀的悬索，重新铺设了桥面，并安装了新的排水系统，以应对冬季风暴。",
        "市长在北端剪彩时表示，这项工程将使大桥在未来五十年内保持安全。",
        "下个月起，过桥费将从两元上调至两元五角，用于偿还工程贷款。",
    ], ["首页", "国内", "国际", "财经", "体育", "文化"], "版权所有 © 2026 城市新闻网 保留所有权利 京ICP备00000000号"),
    ("zh2", "zh", "城市新闻网", "老图书馆向公众开放海图档案", [
        "市立图书馆首次向参观者开放其收藏的十七世纪海图。",
        "修复人员花了两年时间清理脆弱的羊皮纸，其中几张描绘了一七零二年大洪水之前的海岸线。",
        "参观者可以在每周四下午预约导览，每一张海图的数字副本也正在上传到图书馆的网站。",
    ], ["首页", "国内", "国际", "财经", "体育", "文化"], "版权所有 © 2026 城市新闻网 保留所有权利 京ICP备00000000号"),
    ("ja1", "ja", "港町タイムズ", "港の橋が八か月ぶりに開通", [
        "港に架かる橋が八か月にわたる補修工事を終え、月曜日の早朝に再び開通した。工事費は四十億円を超えた。",
        "技術者たちは腐食したケーブルを交換し、路面を舗装し直し、冬の嵐に備えて新しい排水設備を設置した。",
        "市長は北側のたもとでテープカットを行い、この工事によって橋は今後五十年にわたり安全に使えると述べた。",
        "来月から通行料が二百円から二百五十円に値上げされ、工事の借入金の返済に充てられる。",
    ], ["ホーム", "国内", "国際", "経済", "スポーツ", "文化"], "Copyright © 2026 港町タイムズ All rights reserved. 無断転載を禁じます。"),
    ("ja2", "ja", "港町タイムズ", "学校のロボット部が全国大会で優勝", [
        "東門中学校の生徒六人が作ったロボットが、全国大会でほかのどの出場作品よりも速くリサイクル瓶を仕分けた。",
        "このロボットは安価なカメラと色センサーを使い、緑色のガラスと透明なプラスチックを見分ける。部品はすべて余り物から組み立てられた。",
        "部員の多くは入部するまでプログラムを一行も書いたことがなかったと、顧問の先生は話した。",
    ], ["ホーム", "国内", "国際", "経済", "スポーツ", "文化"], "Copyright © 2026 港町タイムズ All rights reserved. 無断転載を禁じます。"),
]


def main():
    os.makedirs(os.path.join(ROOT, "html"), exist_ok=True)
    os.makedirs(os.path.join(ROOT, "ground-truth"), exist_ok=True)
    for pid, lang, site, title, paras, nav, footer in PAGES:
        others = [p for p in PAGES if p[0] != pid and p[1] == lang]
        navhtml = "".join(f'<li><a href="/{i}">{html.escape(n)}</a></li>' for i, n in enumerate(nav))
        side = "".join(f'<li><a href="/{o[0]}.html">{html.escape(o[3])}</a></li>' for o in others)
        body = "".join(f"<p>{html.escape(p)}</p>" for p in paras)
        page = f"""<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)} - {html.escape(site)}</title></head>
<body><header><div class="logo">{html.escape(site)}</div><nav><ul>{navhtml}</ul></nav></header>
<main><article><h1>{html.escape(title)}</h1>{body}
<div class="share"><a href="#">微博</a> <a href="#">LINE</a></div></article>
<aside><h3>{"热门文章" if lang == "zh" else "よく読まれている記事"}</h3><ul>{side}</ul></aside></main>
<footer><p>{html.escape(footer)}</p></footer></body></html>"""
        with open(os.path.join(ROOT, "html", f"{pid}.html"), "w", encoding="utf-8") as f:
            f.write(page)
        gt = {"url": f"https://{lang}.example.test/{pid}.html", "file_id": pid,
              "_internal": {"page_type": {"primary": "article"}},
              "ground_truth": {"title": title, "author": None, "publish_date": None,
                               "main_content": title + "\n\n" + "\n\n".join(paras),
                               "with": [paras[0][:12]], "without": [footer[:12], nav[1] + nav[2]]}}
        with open(os.path.join(ROOT, "ground-truth", f"{pid}.json"), "w", encoding="utf-8") as f:
            json.dump(gt, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
