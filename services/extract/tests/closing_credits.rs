//! A credit line under an article's body ("Additional reporting by ...;
//! Editing by ...", "Mit Material von dpa", "[责任编辑：...]") is part of
//! its text as the wire or the portal prints it, while the page's chrome
//! after it is not.

mod common;

use gleaner_core::messages::Cleaned;
use gleaner_extract::{extract, Extractor};

struct Page {
    code: &'static str,
    paragraphs: [&'static str; 4],
    credit: &'static str,
    after: &'static str,
}

const PAGES: [Page; 3] = [
    Page {
        code: "en",
        paragraphs: [
            "The harbour bridge reopened to traffic on Monday morning after eight months of repairs to its steel deck and cables.",
            "Engineers replaced more than four hundred bolts and repainted the whole span, the city's transport office said in a statement.",
            "Commuters who had taken the ferry or a long detour through the industrial district welcomed the news with some relief.",
            "A second phase, on the approach roads, will begin next spring and is expected to close one lane at a time for six weeks.",
        ],
        credit: "Additional reporting by Steve Gorman; Editing by Marguerita Choy",
        after: "Our Standards: The Trust Principles.",
    },
    Page {
        code: "de",
        paragraphs: [
            "Die Hafenbrücke ist seit Montagmorgen nach acht Monaten Bauzeit wieder für den Verkehr freigegeben worden.",
            "Ingenieure haben mehr als vierhundert Schrauben ersetzt und die gesamte Brücke neu gestrichen, teilte das Verkehrsamt mit.",
            "Pendler, die bisher die Fähre oder einen langen Umweg durch das Industriegebiet nehmen mussten, reagierten erleichtert.",
            "Ein zweiter Bauabschnitt an den Zufahrtsstraßen beginnt im nächsten Frühjahr und soll sechs Wochen dauern.",
        ],
        credit: "Mit Material von dpa und AFP",
        after: "Diesen Artikel teilen",
    },
    Page {
        code: "zh",
        paragraphs: [
            "港口大桥在经过八个月的维修后，于周一上午重新通车，工程包括更换钢制桥面和缆索。",
            "市交通部门在声明中说，工程师更换了四百多个螺栓，并重新粉刷了整座桥梁。",
            "此前不得不乘坐渡轮或绕道工业区的通勤者对这一消息表示欢迎，许多人说终于松了一口气。",
            "第二阶段工程将于明年春天在引道上开始，预计每次封闭一条车道，为期六周。",
        ],
        credit: "[责任编辑：alonliu]",
        after: "我要评论",
    },
];

fn html(p: &Page) -> String {
    let body: String = p.paragraphs.iter().map(|t| format!("<p>{t}</p>")).collect();
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>Harbour Times</title>
<meta property="og:type" content="article"></head>
<body><div id="nav"><a href="/">Home</a> <a href="/city">City</a> <a href="/sport">Sport</a></div>
<div class="main"><div class="bd"><div class="article-body">{body}</div></div>
<div class="ft"><div class="editor">{credit}</div><div class="tools"><a href="#">{after}</a></div></div></div>
<div id="footer"><a href="/about">About</a> <a href="/privacy">Privacy</a></div></body></html>"##,
        code = p.code,
        credit = p.credit,
        after = p.after,
    )
}

fn cleaned(html: &str) -> Cleaned {
    common::cleaned_at(html, "https://news.test/a")
}

#[test]
fn the_credit_under_the_body_is_kept_and_what_follows_it_is_not() {
    let mut failures = Vec::new();
    for p in &PAGES {
        let a = extract(&cleaned(&html(p)), Extractor::Auto);
        for t in p.paragraphs {
            if !a.text.contains(t) {
                failures.push(format!("{}: paragraph missing: {t}", p.code));
            }
        }
        if !a.text.trim_end().ends_with(p.credit) {
            failures.push(format!(
                "{}: credit not closing the text: {:?}",
                p.code, a.text
            ));
        }
        if a.text.contains(p.after) {
            failures.push(format!("{}: kept {:?}", p.code, p.after));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
