#!/usr/bin/env python3
"""Writes examples/site: a small news site for the demo and the end-to-end test.

Every page has the same navigation and footer; robots.txt disallows /private/;
one article is reposted under /opinion/ with a different page around it; two
articles report the same event in different words (both must be kept by
dedup, and grouped as one story)."""
import os, html

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "site")

ARTICLES = [
    ("bridge-reopens", "Harbour bridge reopens after eight months of repairs", "Mara Olsen", "2026-03-02", [
        "The harbour bridge reopened to traffic on Monday morning after eight months of repairs that cost the city more than forty million dollars.",
        "Engineers replaced the corroded suspension cables, resurfaced the deck and installed a new drainage system designed to cope with winter storms.",
        "The mayor, who cut a ribbon at the northern end shortly after six o'clock, said the work would keep the crossing safe for another fifty years.",
        "Tolls will rise from two dollars to two dollars and fifty cents next month, a change the council approved to repay the loan that funded the project.",
    ]),
    ("bridge-commuters", "Commuters return to the harbour crossing", "Tomas Reyes", "2026-03-02", [
        "Ferry queues vanished overnight as thousands of drivers went back to the harbour bridge, which reopened on Monday after eight months of repairs.",
        "Bus drivers on the number nine route said their journeys were twenty minutes shorter, and cyclists praised the widened lane on the eastern side.",
        "Some residents of the old quarter complained about the bridge's higher tolls and asked the council to offer a discount for people who cross every day.",
        "Shopkeepers near the southern ramp, who lost trade during the closure, hope the returning traffic will bring their customers back before spring.",
    ]),
    ("library-archive", "Old library opens its map archive to the public", "Ines Duarte", "2026-02-18", [
        "The municipal library has opened its collection of seventeenth century sea charts to visitors for the first time in its history.",
        "Conservators spent two years cleaning the fragile vellum sheets, several of which show the coastline before the great flood of 1702.",
        "Visitors can book a guided session on Thursday afternoons, and a digital copy of every chart is being placed on the library's website.",
        "The archivist said schoolchildren were especially drawn to a chart that marks a sea serpent off the northern headland.",
    ]),
    ("fishing-quota", "Fishing fleet agrees new quota for cod", "Mara Olsen", "2026-01-30", [
        "Skippers from the Port Ellis fleet have agreed to cut their cod catch by a fifth this year after scientists warned that stocks were falling.",
        "The agreement, reached after three days of talks in the harbour master's office, also closes two spawning grounds during the spring months.",
        "Younger crews worry that smaller catches will make it harder to pay off their boats, while older skippers said the sacrifice was unavoidable.",
        "The regional fisheries board will review the quota in October, when the autumn survey results are published.",
    ]),
    ("robotics-club", "School robotics club wins national championship", "Kenji Watanabe", "2026-02-05", [
        "A team of six pupils from Eastgate Secondary built a robot that sorted recycled bottles faster than any other entry at the national finals.",
        "Their machine uses a cheap camera and a colour sensor to tell green glass from clear plastic, and it was assembled from spare parts.",
        "The club meets in a converted storeroom twice a week, and its teacher said most members had never written a line of code before joining.",
        "The team will travel to the international championship in Lisbon in June, paid for by a fundraising concert organised by their parents.",
    ]),
    ("market-hall", "Covered market hall to be restored", "Ines Duarte", "2026-03-10", [
        "The council has approved plans to restore the Victorian covered market hall, whose iron roof has leaked for more than a decade.",
        "Architects will replace the broken glass panels, repaint the green ironwork and add a mezzanine where local bakers can sell their bread.",
        "Traders will move to temporary stalls on Quay Street during the eighteen months of building work, and rents will be frozen until they return.",
        "Heritage groups welcomed the decision, saying the hall is one of the few buildings in the town that survived the fire of 1911.",
    ]),
]

NAV = """<header class="site-header"><div class="logo"><a href="/">The Harbour Gazette</a></div>
<nav class="main-nav"><ul><li><a href="/">Home</a></li><li><a href="/section/world.html">World</a></li>
<li><a href="/section/business.html">Business</a></li><li><a href="/section/science.html">Science</a></li>
<li><a href="/section/sport.html">Sport</a></li><li><a href="/section/culture.html">Culture</a></li></ul></nav></header>"""

FOOTER = """<footer class="site-footer"><p>© 2026 The Harbour Gazette. All rights reserved. Registered in Port Ellis.</p>
<p><a href="/about.html">About us</a> | <a href="/contact.html">Contact</a> | <a href="/private/staff.html">Staff area</a></p></footer>"""


def sidebar(skip):
    items = "".join(f'<li><a href="/news/{s}.html">{html.escape(t)}</a></li>' for s, t, *_ in ARTICLES if s != skip)
    return f'<aside class="sidebar"><h3>Most read</h3><ul>{items}</ul></aside>'


def page(title, body, extra_head=""):
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} | The Harbour Gazette</title>
{extra_head}<script>window.analytics = {{ track: function() {{}} }};</script>
<style>.sidebar {{ float: right; }}</style></head>
<body>{NAV}
<div class="promo"><a href="/subscribe.html">Subscribe for unlimited access to local news</a></div>
{body}
{FOOTER}</body></html>
"""


def article_body(slug, title, author, date, paras, aside):
    ps = "\n".join(f"<p>{html.escape(p)}</p>" for p in paras)
    return f"""<main><article class="story"><h1>{html.escape(title)}</h1>
<p class="byline">By {html.escape(author)} · <time datetime="{date}">{date}</time></p>
{ps}
<div class="share"><a href="#">Share</a> <a href="#">Tweet</a> <a href="#">Email</a></div>
</article>{aside}</main>"""


def write(rel, text):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    write("robots.txt", "User-agent: *\nDisallow: /private/\n")
    for slug, title, author, date, paras in ARTICLES:
        meta = f'<meta name="author" content="{author}"><meta property="article:published_time" content="{date}">'
        write(f"news/{slug}.html", page(title, article_body(slug, title, author, date, paras, sidebar(slug)), meta))
    # The repost: the same story with a different page around it.
    slug, title, author, date, paras = ARTICLES[0]
    other = """<aside class="opinion-rail"><h3>Columnists</h3><ul><li><a href="/section/culture.html">Letters to the editor</a></li>
<li><a href="/section/world.html">Our view on the week</a></li></ul><p>Opinion pieces reflect the views of their authors.</p></aside>"""
    body = '<div class="section-banner"><h2>Opinion</h2></div>' + article_body(slug, title, author, date, paras, other)
    write("opinion/bridge-repost.html", page(title, body))
    teasers = "".join(f'<li><a href="/news/{s}.html">{html.escape(t)}</a></li>' for s, t, *_ in ARTICLES)
    home = f"""<main><h2>Latest news</h2><ul class="teasers">{teasers}
<li><a href="/opinion/bridge-repost.html">Opinion: the bridge is back</a></li></ul>{sidebar("")}</main>"""
    write("index.html", page("Home", home))
    write("about.html", page("About us", "<main><h1>About us</h1><p>Local news since 1887.</p></main>"))
    write("private/staff.html", page("Staff area", "<main><h1>Staff area</h1><p>The staff rota is confidential.</p></main>"))


if __name__ == "__main__":
    main()
