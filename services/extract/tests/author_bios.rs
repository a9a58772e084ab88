//! The author's bio box under an article ("Mara Olsen is a reporter
//! ...", with its contact line) is not the article's text, in several
//! languages, when the page names the author; the body's paragraphs are.
//! The rule runs after every extractor: on these small pages `auto`'s
//! classifiers leave the box out by themselves, the text-density
//! extractor takes it in with the body, and the rule then drops it.

mod common;

use gleaner_extract::{extract, Extractor};

struct Page {
    code: &'static str,
    author: &'static str,
    paragraphs: [&'static str; 4],
    bio: &'static str,
    contact: &'static str,
}

const PAGES: [Page; 3] = [
    Page {
        code: "en",
        author: "Mara Olsen",
        paragraphs: [
            "The harbour bridge reopened to traffic on Monday morning after eight months of repairs to its steel deck and cables.",
            "Engineers replaced more than four hundred bolts and repainted the whole span, the city's transport office said in a statement.",
            "Commuters who had taken the ferry or a long detour through the industrial district welcomed the news with some relief.",
            "A second phase, on the approach roads, will begin next spring and is expected to close one lane at a time for six weeks.",
        ],
        bio: "Mara Olsen is a city reporter for the Harbour Times and is based in the old town.",
        contact: "Contact Mara Olsen at mara.olsen@example.com",
    },
    Page {
        code: "de",
        author: "Jonas Weber",
        paragraphs: [
            "Die Hafenbrücke ist seit Montagmorgen nach acht Monaten Bauzeit wieder für den Verkehr freigegeben worden.",
            "Ingenieure haben mehr als vierhundert Schrauben ersetzt und die gesamte Brücke neu gestrichen, teilte das Verkehrsamt mit.",
            "Pendler, die bisher die Fähre oder einen langen Umweg durch das Industriegebiet nehmen mussten, reagierten erleichtert.",
            "Ein zweiter Bauabschnitt an den Zufahrtsstraßen beginnt im nächsten Frühjahr und soll sechs Wochen dauern.",
        ],
        bio: "Jonas Weber ist Lokalredakteur und berichtet seit 2015 über Verkehr und Stadtentwicklung.",
        contact: "Jonas Weber auf Mastodon folgen",
    },
    Page {
        code: "fr",
        author: "Claire Dubois",
        paragraphs: [
            "Le pont du port a rouvert à la circulation lundi matin après huit mois de travaux sur son tablier et ses câbles.",
            "Les ingénieurs ont remplacé plus de quatre cents boulons et repeint tout l'ouvrage, a indiqué le service des transports.",
            "Les usagers qui prenaient le bac ou un long détour par la zone industrielle ont accueilli la nouvelle avec soulagement.",
            "Une seconde phase, sur les voies d'accès, commencera au printemps et fermera une voie à la fois pendant six semaines.",
        ],
        bio: "Claire Dubois est journaliste au service Ville depuis 2018, spécialiste des transports.",
        contact: "Écrire à Claire Dubois",
    },
];

fn html(p: &Page) -> String {
    let body: String = p.paragraphs.iter().map(|t| format!("<p>{t}</p>")).collect();
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>Harbour Times</title>
<meta name="author" content="{author}"><meta property="og:type" content="article"></head>
<body><div id="nav"><a href="/">Home</a> <a href="/city">City</a> <a href="/sport">Sport</a></div>
<div class="page"><div class="story"><h1>Harbour bridge</h1><div class="story-body">{body}
<p class="print"><a href="/"><b>Harbour Times</b></a></p></div>
<div class="user-bio"><div class="user-bio__main-text">{bio}</div>
<div class="user-bio__user-contact"><a href="mailto:x@example.com">{contact}</a></div></div></div></div>
<div id="footer"><a href="/about">About</a> <a href="/privacy">Privacy</a></div></body></html>"##,
        code = p.code,
        author = p.author,
        bio = p.bio,
        contact = p.contact,
    )
}

#[test]
fn the_bio_box_under_the_article_is_not_its_text() {
    let mut failures = Vec::new();
    for (p, which) in PAGES
        .iter()
        .flat_map(|p| [(p, Extractor::Auto), (p, Extractor::Density)])
    {
        let a = extract(&common::cleaned_at(&html(p), "https://news.test/a"), which);
        failures.extend(common::text_failures(
            &format!("{} {which:?}", p.code),
            &a.text,
            &p.paragraphs,
            &[p.bio, p.contact],
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
