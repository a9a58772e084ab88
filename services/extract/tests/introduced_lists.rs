//! On an article, a list that a line ending in a colon introduces ("The
//! overall rankings were as follows:"), its items short lines the block
//! classifiers take for chrome, is the article's text, in any language.

mod common;

use gleaner_extract::{extract, Extractor};

struct Page {
    code: &'static str,
    before: [&'static str; 2],
    colon: &'static str,
    items: [&'static str; 5],
    after: [&'static str; 2],
}

const PAGES: [Page; 2] = [
    Page {
        code: "en",
        before: [
            "The United States ranked last among ten rich countries in a new report on how well their economies serve ordinary workers and families.",
            "The report looked at wages, the cost of housing and health care, and how much of the national income goes to the poorest half of households.",
        ],
        colon: "The overall rankings of the countries were as follows:",
        items: ["1. Finland", "2. Norway", "3. Australia", "4. Canada", "5. Germany"],
        after: [
            "The low ranking the United States received was due to its extreme levels of inequality, the authors of the report wrote in their summary.",
            "The report concluded that the safety net was ineffective at lifting families out of poverty, compared with the other nine countries.",
        ],
    },
    Page {
        code: "de",
        before: [
            "Die Vereinigten Staaten landen in einem neuen Bericht über zehn reiche Länder auf dem letzten Platz, wenn es um Arbeitnehmer und Familien geht.",
            "Der Bericht untersucht Löhne, die Kosten für Wohnen und Gesundheit und den Anteil des Einkommens, der an die ärmere Hälfte der Haushalte geht.",
        ],
        colon: "Die Rangliste der Länder sieht so aus:",
        items: ["1. Finnland", "2. Norwegen", "3. Australien", "4. Kanada", "5. Deutschland"],
        after: [
            "Den schlechten Platz der Vereinigten Staaten erklären die Autoren des Berichts mit der großen Ungleichheit bei Einkommen und Vermögen.",
            "Das soziale Netz hole dort weniger Familien aus der Armut als in den neun anderen Ländern, heißt es in der Zusammenfassung des Berichts.",
        ],
    },
];

fn html(p: &Page) -> String {
    let para = |t: &&str| format!("<p>{t}</p>");
    let before: String = p.before.iter().map(para).collect();
    let after: String = p.after.iter().map(para).collect();
    // Each item one `<span>` deeper, as a CMS's editor nests them.
    let items: String = p.items.iter().map(|i| format!("<span>{i}<br>")).collect();
    let closes = "</span>".repeat(p.items.len());
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>Report ranks ten countries - Money</title>
<meta property="og:type" content="article"></head>
<body><div id="nav"><a href="/">Home</a> <a href="/markets">Markets</a> <a href="/tech">Tech</a></div>
<div class="layout"><section class="column"><article class="module"><h1>Report ranks ten countries</h1>
<div id="storytext">{before}<p><span>{colon}<br>{items}{closes}</span></p>{after}</div></article></section>
<div class="rail"><h3>Most popular</h3><a href="/a">Stocks rally on jobs data</a> <a href="/b">Oil falls again</a></div></div>
<div id="footer"><a href="/about">About</a> <a href="/privacy">Privacy</a></div></body></html>"##,
        code = p.code,
        colon = p.colon,
    )
}

#[test]
fn the_list_after_a_colon_is_the_articles_text() {
    let mut failures = Vec::new();
    for p in &PAGES {
        let a = extract(
            &common::cleaned_at(&html(p), "https://news.test/a"),
            Extractor::Auto,
        );
        let kept: Vec<&str> = [&p.before[..], &[p.colon], &p.items, &p.after].concat();
        failures.extend(common::text_failures(p.code, &a.text, &kept, &[]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
