//! Article pages in five languages, each with every kind of boilerplate
//! an article page carries around its text: a share bar, an author's bio
//! box, a newsletter prompt, a list of related articles, readers'
//! comments and the title of the form to write one, and inside the text a
//! gallery of other stories, a chart and an ad slot's label.
//! The article's paragraphs are the text; none of the rest is.

mod common;

use gleaner_core::messages::Cleaned;
use gleaner_extract::{extract, Extractor};

/// The words one language's page is made of.
struct Language {
    code: &'static str,
    headline: &'static str,
    paragraphs: [&'static str; 5],
    share: &'static str,
    bio: &'static str,
    newsletter: &'static str,
    related: [&'static str; 4],
    comments: [&'static str; 3],
    /// The title of the form to write a comment.
    reply: &'static str,
    /// The label of an ad slot between the paragraphs.
    ad: &'static str,
}

const LANGUAGES: [Language; 5] = [
    Language {
        code: "en",
        headline: "Harbour bridge reopens after eight months of repairs",
        paragraphs: [
            "The harbour bridge reopened to traffic on Monday morning after eight months of repairs to its steel deck and cables.",
            "Engineers replaced more than four hundred bolts and repainted the whole span, the city's transport office said in a statement.",
            "Commuters who had taken the ferry or a long detour through the industrial district welcomed the news with some relief.",
            "The work cost twelve million pounds, slightly less than planned, because the winter was mild and crews could work at night.",
            "A second phase, on the approach roads, will begin next spring and is expected to close one lane at a time for six weeks.",
        ],
        share: "Share on Facebook Share on X Email this article",
        bio: "Mara Olsen covers transport and city hall for the Harbour Times. She has reported on the city for a decade.",
        newsletter: "Get the morning briefing in your inbox every day. Sign up for our free newsletter now.",
        related: [
            "Ferry operators expect fewer passengers this summer",
            "City council approves budget for road repairs",
            "New cycle lanes open along the waterfront",
            "Port traffic reaches a record in October",
        ],
        comments: [
            "Finally! It took them long enough, I was late to work every day.",
            "Twelve million for some bolts and paint seems a lot to me honestly.",
            "The night crews did a great job, thank you to all of them.",
        ],
        reply: "Leave a Reply",
        ad: "Advertisement",
    },
    Language {
        code: "de",
        headline: "Hafenbrücke nach acht Monaten Reparatur wieder offen",
        paragraphs: [
            "Die Hafenbrücke ist seit Montagmorgen nach acht Monaten Bauzeit wieder für den Verkehr freigegeben worden.",
            "Ingenieure haben mehr als vierhundert Schrauben ersetzt und die gesamte Brücke neu gestrichen, teilte das Verkehrsamt mit.",
            "Pendler, die bisher die Fähre oder einen langen Umweg durch das Industriegebiet nehmen mussten, reagierten erleichtert.",
            "Die Arbeiten kosteten zwölf Millionen Euro und damit etwas weniger als geplant, weil der Winter mild war.",
            "Ein zweiter Bauabschnitt an den Zufahrtsstraßen beginnt im nächsten Frühjahr und soll sechs Wochen dauern.",
        ],
        share: "Auf Facebook teilen Auf X teilen Artikel per E-Mail senden",
        bio: "Anna Schmidt schreibt seit zehn Jahren über Verkehr und Stadtpolitik für das Hafenblatt.",
        newsletter: "Jeden Morgen die wichtigsten Nachrichten im Postfach. Jetzt kostenlos den Newsletter abonnieren.",
        related: [
            "Fährbetreiber erwarten weniger Fahrgäste im Sommer",
            "Stadtrat beschließt Haushalt für Straßenreparaturen",
            "Neue Radwege entlang der Uferpromenade eröffnet",
            "Hafenumschlag erreicht im Oktober einen Rekord",
        ],
        comments: [
            "Endlich! Das hat wirklich lange genug gedauert, ich kam jeden Tag zu spät.",
            "Zwölf Millionen für ein paar Schrauben und Farbe finde ich ehrlich gesagt viel.",
            "Die Nachtschichten haben super Arbeit geleistet, danke an alle.",
        ],
        reply: "Kommentar schreiben",
        ad: "Anzeige",
    },
    Language {
        code: "fr",
        headline: "Le pont du port rouvre après huit mois de travaux",
        paragraphs: [
            "Le pont du port a rouvert à la circulation lundi matin après huit mois de travaux sur son tablier et ses câbles.",
            "Les ingénieurs ont remplacé plus de quatre cents boulons et repeint tout l'ouvrage, a indiqué le service des transports.",
            "Les usagers qui prenaient le ferry ou un long détour par la zone industrielle ont accueilli la nouvelle avec soulagement.",
            "Les travaux ont coûté douze millions d'euros, un peu moins que prévu, grâce à un hiver doux et au travail de nuit.",
            "Une seconde phase, sur les voies d'accès, commencera au printemps prochain et durera environ six semaines.",
        ],
        share: "Partager sur Facebook Partager sur X Envoyer par courriel",
        bio: "Claire Martin suit les transports et la vie municipale pour La Gazette du Port depuis dix ans.",
        newsletter: "Recevez l'essentiel de l'actualité chaque matin. Inscrivez-vous gratuitement à notre lettre d'information.",
        related: [
            "Les compagnies de ferry attendent moins de passagers cet été",
            "Le conseil municipal vote le budget des travaux de voirie",
            "De nouvelles pistes cyclables ouvrent le long des quais",
            "Le trafic du port atteint un record en octobre",
        ],
        comments: [
            "Enfin ! Il était temps, j'arrivais en retard au travail tous les jours.",
            "Douze millions pour des boulons et de la peinture, je trouve ça cher.",
            "Bravo aux équipes de nuit, merci à elles pour ce travail.",
        ],
        reply: "Laisser un commentaire",
        ad: "Publicité",
    },
    Language {
        code: "zh",
        headline: "港口大桥经过八个月维修后重新开放",
        paragraphs: [
            "港口大桥周一上午重新通车，此前桥面和缆索进行了为期八个月的维修工程，交通部门表示工程顺利完成。",
            "工程师更换了四百多个螺栓，并将整座大桥重新粉刷，市交通局在声明中介绍了维修的主要内容和进度安排。",
            "此前只能乘坐渡轮或绕行工业区的通勤者对这一消息表示欢迎，许多人说每天上班的时间终于可以缩短了。",
            "这项工程耗资一千二百万元，略低于预算，原因是冬季气候温和，施工队伍能够在夜间持续作业完成任务。",
            "第二阶段工程将于明年春天在引道上展开，预计每次封闭一条车道，整个工期大约持续六个星期左右。",
        ],
        share: "分享到微信 分享到微博 发送邮件",
        bio: "王丽负责报道交通和市政新闻，已在港口日报工作十年，曾多次获得新闻奖项。",
        newsletter: "每天早上获取最新新闻摘要，立即免费订阅我们的电子报。",
        related: [
            "渡轮公司预计今年夏天乘客减少",
            "市议会批准道路维修预算",
            "滨水区新自行车道正式开通",
            "港口吞吐量十月创下新纪录",
        ],
        comments: [
            "终于修好了，我每天上班都迟到，真是等了太久了。",
            "一千二百万只是换螺栓和刷油漆，我觉得太贵了。",
            "夜班工人辛苦了，感谢所有参与施工的人员。",
        ],
        reply: "发表评论",
        ad: "广告",
    },
    Language {
        code: "ja",
        headline: "港の橋、八か月の修理を終えて再開通",
        paragraphs: [
            "港の橋は月曜日の朝、橋桁とケーブルの八か月にわたる修理工事を終えて、ようやく再び通行できるようになった。",
            "技術者たちは四百本以上のボルトを交換し、橋全体を塗り直したと、市の交通局が声明で明らかにした。",
            "これまでフェリーや工業地帯を通る長い迂回路を使っていた通勤客は、この知らせを安堵とともに受け止めた。",
            "工事費は千二百万円で、冬が穏やかで夜間も作業を続けられたため、当初の計画よりわずかに少なく済んだ。",
            "取り付け道路の第二期工事は来年の春に始まり、一車線ずつ閉鎖しながら約六週間続く見込みだという。",
        ],
        share: "Facebookでシェア Xでシェア メールで送る",
        bio: "佐藤花子は港新聞で交通と市政を十年にわたり担当している記者で、多くの賞を受けている。",
        newsletter: "毎朝のニュースをメールでお届けします。無料のニュースレターに今すぐ登録してください。",
        related: [
            "フェリー会社、今夏の乗客減を予想",
            "市議会が道路補修の予算を承認",
            "水辺に新しい自転車道が開通",
            "港の取扱量、十月に過去最高を記録",
        ],
        comments: [
            "やっと直った。毎日仕事に遅れていたので長すぎました。",
            "ボルトと塗装だけで千二百万円は高すぎると思います。",
            "夜間作業の皆さん、本当にお疲れさまでした。ありがとう。",
        ],
        reply: "コメントを書く",
        ad: "広告",
    },
];

/// Each of `items` made into markup by `f` (given its place), in order.
fn markup(items: &[&str], f: impl Fn(usize, &str) -> String) -> String {
    items.iter().enumerate().map(|(i, t)| f(i, t)).collect()
}

/// A news article page as a publisher's template lays it out.
fn page(l: &Language) -> String {
    let paragraphs = markup(&l.paragraphs, |_, p| format!("<p>{p}</p>"));
    let related = markup(&l.related, |i, r| {
        format!("<li><a href=\"/news/{i}\">{r}</a></li>")
    });
    let comments = markup(&l.comments, |i, c| {
        format!(
            "<li class=\"comment\"><div class=\"comment-author\">reader{i}</div><p>{c}</p></li>"
        )
    });
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>{h} | Harbour Times</title>
<meta property="og:type" content="article"><meta property="og:title" content="{h}"></head>
<body><header><nav><a href="/">Home</a> <a href="/city">City</a> <a href="/sport">Sport</a></nav></header>
<main><article><h1>{h}</h1>
<div class="share-bar"><a href="#">{share}</a></div>
{paragraphs}
<aside class="author-bio"><p>{bio}</p></aside>
<div class="newsletter-signup"><p>{newsletter}</p><form><input type="email"><button>OK</button></form></div>
</article>
<section class="related-articles"><h2>Related</h2><ul>{related}</ul></section>
<section id="comments" class="comments"><ol>{comments}</ol></section>
</main><footer><p>© Harbour Times</p></footer></body></html>"##,
        code = l.code,
        h = l.headline,
        share = l.share,
        bio = l.bio,
        newsletter = l.newsletter,
    )
}

/// The same article in a template with no `<article>` element: the
/// post's body in a `div`, the rest beside and below it.
fn page_without_article_element(l: &Language) -> String {
    let paragraphs = markup(&l.paragraphs, |_, p| format!("<p>{p}</p>"));
    let related = markup(&l.related, |i, r| {
        format!("<div class=\"teaser\"><a href=\"/news/{i}\">{r}</a></div>")
    });
    let comments = markup(&l.comments, |_, c| {
        format!("<div class=\"reply\"><span class=\"who\">reader</span><p>{c}</p></div>")
    });
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>{h} - Harbour Times</title>
<meta property="og:type" content="article"></head>
<body><div id="top"><a href="/">Home</a> <a href="/city">City</a></div>
<div class="wrap"><div class="post"><h1 class="post-title">{h}</h1>
<ul class="social"><li><a href="#">{share}</a></li></ul>
<div class="post-body">{paragraphs}
<div class="titlebar">{reply}</div><div><form action="/comment"><table><tr><td>Name</td><td><input name="n"></td></tr><tr><td>Text</td><td><textarea name="c"></textarea></td></tr></table></form></div></div>
<div class="about-the-author"><img src="a.jpg"><p>{bio}</p></div></div>
<div class="box-subscribe"><p>{newsletter}</p></div>
<div class="more-stories">{related}</div>
<div id="disqus_thread">{comments}</div></div></body></html>"##,
        code = l.code,
        h = l.headline,
        share = l.share,
        bio = l.bio,
        newsletter = l.newsletter,
        reply = l.reply,
    )
}

/// The post followed by a feed of teaser cards (a linked headline, a line
/// of standfirst and the source each) under class names that say nothing:
/// recirculation told by its structure alone.
fn page_with_teaser_feed(l: &Language) -> String {
    let paragraphs = markup(&l.paragraphs, |_, p| format!("<p>{p}</p>"));
    let cards = markup(&l.related, |i, r| {
        let standfirst = l.comments[i % l.comments.len()];
        format!(
            "<li class=\"item\"><h3><a href=\"/news/{i}\">{r}</a></h3><p>{standfirst}</p><span>Harbour Times</span></li>"
        )
    });
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>{h}</title>
<meta property="og:type" content="article"></head>
<body><div class="wrap"><div class="post"><h1>{h}</h1>
<div class="post-body">{paragraphs}</div></div>
<div class="feed"><ul>{cards}</ul></div></div></body></html>"##,
        code = l.code,
        h = l.headline,
    )
}

/// A blog's post: the body in a `div.article-content` (no `<article>`)
/// with a gallery of other stories and a chart set between its
/// paragraphs, then a comment thread longer than the post and a sidebar.
fn blog_post_with_inserts(l: &Language) -> String {
    let p = |i: usize| format!("<p>{}</p>", l.paragraphs[i]);
    let slides = markup(&l.related, |i, r| {
        let caption = l.comments[i % l.comments.len()];
        format!(
            "<li><h3><span>{}/4</span> {r}</h3><p>{caption}</p></li>",
            i + 1
        )
    });
    let thread = markup(&[l.comments, l.comments, l.comments].concat(), |i, c| {
        format!(
            "<ul class=\"single-post\"><li class=\"post-info\">#{i} reader{i}</li><li class=\"post-text\">{c}</li></ul>"
        )
    });
    let sidebar = markup(&l.related, |i, r| {
        format!("<li><a href=\"/post/{i}\">{r}</a></li>")
    });
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>{h} | Quay Notes</title>
<meta property="og:type" content="article"></head>
<body><div id="header"><h1><a href="/">Quay Notes</a></h1></div>
<div id="main"><div class="post"><h2 class="title">{h}</h2>
<div class="article-content">{p0}{p1}
<div class="widget type-gallery"><ul class="legends">{slides}</ul></div>
{p2}<div class="graphic"><p>$915</p><p>600</p><p>’17</p><p>’28</p></div>{p3}
<div class="slot"><p class="label">{ad}</p><div id="ad-2"></div></div>{p4}</div></div>
<div class="comment-box">{thread}</div>
<div id="links"><h4>Recent</h4><ul>{sidebar}</ul></div></div></body></html>"##,
        code = l.code,
        h = l.headline,
        p0 = p(0),
        p1 = p(1),
        p2 = p(2),
        p3 = p(3),
        p4 = p(4),
        ad = l.ad,
    )
}

fn cleaned(html: &str) -> Cleaned {
    common::cleaned_at(html, "https://news.test/a")
}

/// Each language in every template.
#[test]
fn an_articles_text_is_its_paragraphs_in_every_language() {
    let mut failures = Vec::new();
    for (l, template, html) in LANGUAGES.iter().flat_map(|l| {
        [
            (l, "article", page(l)),
            (l, "divs", page_without_article_element(l)),
            (l, "feed", page_with_teaser_feed(l)),
            (l, "blog", blog_post_with_inserts(l)),
        ]
    }) {
        let a = extract(&cleaned(&html), Extractor::Auto);
        let code = format!("{} ({template})", l.code);
        for p in l.paragraphs {
            if !a.text.contains(p) {
                failures.push(format!("{code}: paragraph missing: {p}"));
            }
        }
        let kinds = [
            ("share bar", vec![l.share]),
            ("author bio", vec![l.bio]),
            ("newsletter", vec![l.newsletter]),
            ("related", l.related.to_vec()),
            ("comments", l.comments.to_vec()),
            ("comment form", vec![l.reply]),
            ("chart", vec!["$915", "’17"]),
            ("ad label", vec![l.ad]),
        ];
        for (kind, texts) in kinds {
            for t in texts {
                if a.text.contains(t) {
                    failures.push(format!("{code}: {kind} kept: {t}"));
                }
            }
        }
        if a.title != l.headline {
            failures.push(format!("{code}: title {:?}", a.title));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
