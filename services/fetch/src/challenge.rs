//! Block pages: a bot challenge or an "access denied" page served instead
//! of the content. A page is one when what a reader sees of it is the
//! interstitial itself: little visible text, carrying a challenge phrase or
//! a challenge widget. A marker inside an otherwise normal page (the
//! reCAPTCHA of a comment form, a Cloudflare script on an article) is not
//! one. 403, 429 and 503 answers count as blocked by their status
//! (`Outcome::of`).

use aho_corasick::AhoCorasick;
use std::sync::LazyLock;

/// Interstitials say little: the longest real ones (Cloudflare, Akamai,
/// PerimeterX, DataDome, Imperva) are a few hundred characters.
const MAX_VISIBLE_CHARS: usize = 1000;

/// Pages larger than this are content, whatever they embed.
const MAX_BYTES: usize = 256 * 1024;

/// What interstitials say (title or text), lowercase.
const PHRASES: &[&str] = &[
    "just a moment",
    "checking your browser",
    "checking if the site connection is secure",
    "verify you are human",
    "verifying you are human",
    "are you a robot",
    "access denied",
    "attention required",
    "enable javascript and cookies to continue",
    "please complete the security check",
    "request unsuccessful",
    "pardon our interruption",
    "press & hold",
    "press and hold",
];

/// What their markup carries, lowercase.
const MARKUP: &[&str] = &[
    "cf-browser-verification",
    "challenge-platform",
    "cf_chl_",
    "g-recaptcha",
    "h-captcha",
    "px-captcha",
    "_incapsula_resource",
    "captcha-delivery.com",
];

/// Every marker and phrase, searched in a lowercase copy by the SIMD packed
/// searcher (Teddy): 6.6 times faster than a case-insensitive automaton,
/// which has no prefilter for patterns this varied (over wcxb-dev's pages,
/// 31 ms against 205 ms). `None` without SIMD.
static PACKED: LazyLock<Option<aho_corasick::packed::Searcher>> =
    LazyLock::new(|| aho_corasick::packed::Searcher::new(MARKUP.iter().chain(PHRASES)));

/// The same patterns, case-insensitive, where there is no SIMD.
static FIND: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(MARKUP.iter().chain(PHRASES))
        .expect("the challenge markers build an automaton")
});

/// Whether `html` is a block page rather than content.
pub(crate) fn looks_like_challenge(html: &str) -> bool {
    if html.len() > MAX_BYTES {
        return false;
    }
    // Every page is asked, so one pass over its bytes for every marker and
    // phrase.
    let found = match PACKED.as_ref() {
        Some(packed) => {
            let lower = html.as_bytes().to_ascii_lowercase();
            markers_found(packed.find_iter(&lower).map(|m| m.pattern().as_usize()))
        }
        None => markers_found(FIND.find_iter(html).map(|m| m.pattern().as_usize())),
    };
    let Some(marked) = found else {
        return false;
    };
    // Only pages that mention a challenge pay for a look at their text:
    // first a quick bound (with a margin for what clean hides), then the
    // text clean keeps.
    if gleaner_clean::shows_more_text_than(html, 4 * MAX_VISIBLE_CHARS) {
        return false;
    }
    let Ok((title, _, blocks)) = gleaner_clean::clean_html(html) else {
        return false;
    };
    let visible: usize = blocks.iter().map(|b| b.text.chars().count()).sum();
    if visible > MAX_VISIBLE_CHARS || has_article_body(&blocks) {
        return false;
    }
    let seen = blocks
        .iter()
        .map(|b| b.text.as_str())
        .chain([title.as_str()])
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    marked || PHRASES.iter().any(|p| seen.contains(p))
}

/// Paragraphs of prose that make a page content, however short: inside an
/// `<article>` or `<main>`, two; anywhere else, three (the block pages of
/// Cloudflare and PerimeterX have up to two sentences of their own).
const ARTICLE_PARAGRAPHS: usize = 2;
const LOOSE_PARAGRAPHS: usize = 3;

/// Whether the page has a body of real paragraphs: `<p>`s of a dozen words
/// or more (30 characters in a script written without spaces), mostly not
/// links, seen by a reader, saying no challenge phrase. A short article
/// with a captcha under its comment form, or one whose first sentence says
/// "access denied", is such a page; an interstitial is not.
fn has_article_body(blocks: &[gleaner_core::messages::Block]) -> bool {
    let mut in_article = 0;
    let mut anywhere = 0;
    for b in blocks {
        if b.tag != "p" || b.chrome_role || b.hidden_len * 2 > b.text_len {
            continue;
        }
        if b.link_text_len * 5 > b.text_len {
            continue;
        }
        // A dozen words, or in a script written without spaces (Chinese,
        // Japanese) 30 characters, about as much said.
        let words = b.text.split_whitespace().count();
        let enough = if words >= 3 {
            words >= 12
        } else {
            b.text_len >= 30
        };
        if !enough {
            continue;
        }
        let lower = b.text.to_lowercase();
        if PHRASES.iter().any(|p| lower.contains(p)) {
            continue;
        }
        anywhere += 1;
        if b.path.split('/').any(|e| {
            let tag = e.split(['#', '.']).next().unwrap_or("");
            tag == "article" || tag == "main"
        }) {
            in_article += 1;
        }
    }
    in_article >= ARTICLE_PARAGRAPHS || anywhere >= LOOSE_PARAGRAPHS
}

/// `None` when nothing was found, else whether a markup marker was (not
/// only phrases), from the indexes of the patterns found.
fn markers_found(mut found: impl Iterator<Item = usize>) -> Option<bool> {
    let first = found.next()?;
    Some(first < MARKUP.len() || found.any(|p| p < MARKUP.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interstitials_are_block_pages() {
        let cloudflare = r#"<!DOCTYPE html><html><head><title>Just a moment...</title></head>
            <body><div class="main-wrapper"><h1>example.com</h1>
            <p>Checking if the site connection is secure</p>
            <noscript>Enable JavaScript and cookies to continue</noscript>
            <script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></div></body></html>"#;
        assert!(looks_like_challenge(cloudflare));
        let denied = "<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1>\
            <p>You don't have permission to access this page on this server.</p>\
            <p>Reference #18.2f3c1402.1700000000.abc</p></body></html>";
        assert!(looks_like_challenge(denied));
        let captcha = r#"<html><body><p>Please verify you are human.</p>
            <div class="g-recaptcha" data-sitekey="x"></div></body></html>"#;
        assert!(looks_like_challenge(captcha));
    }

    #[test]
    fn a_marker_inside_an_article_is_not_a_block_page() {
        let paragraph = "<p>The harbour bridge reopened on Monday after eight months of repairs, and the first buses crossed it before dawn while the city counted the cost of the long closure.</p>";
        let article = format!(
            "<html><head><title>Bridge reopens</title></head><body><article><h1>Bridge reopens</h1>{}</article>\
             <form id=comments><textarea></textarea><div class=g-recaptcha></div><p>Verify you are human</p></form></body></html>",
            paragraph.repeat(8)
        );
        assert!(!looks_like_challenge(&article));
        assert!(!looks_like_challenge("<p>an article</p>"));
        let big = format!("{}g-recaptcha", "x".repeat(300 * 1024));
        assert!(!looks_like_challenge(&big));
    }

    /// Short articles (about 700 characters) with a captcha under their
    /// comment form, or saying a challenge phrase in their text, in several
    /// languages, are content.
    #[test]
    fn a_short_article_of_real_paragraphs_is_never_a_block_page() {
        let articles = [
            ("en", "Access denied was the short answer the court gave to the families on Tuesday, after a hearing that lasted less than an hour.", "The judges said the archive would stay closed until the ministry finished its own review of the documents, which could take a year.", "Lawyers for the families said they would appeal, and asked the ministry to publish at least the index of the files."),
            ("de", "Der Stadtrat hat am Dienstag beschlossen, die alte Brücke über den Fluss bis zum Sommer vollständig zu sanieren und danach wieder zu öffnen.", "Die Kosten von rund vierzig Millionen Euro teilen sich die Stadt und das Land, wie die Bürgermeisterin nach der Sitzung erklärte.", "Während der Bauzeit fahren die Busse über die Umleitung im Norden, die Fähre verkehrt zusätzlich jede halbe Stunde."),
            ("fr", "Le conseil municipal a voté mardi la rénovation complète du vieux pont, qui devrait rouvrir à la circulation avant la fin de l'été prochain.", "Les travaux coûteront environ quarante millions d'euros, partagés entre la ville et la région, a précisé la maire à l'issue de la séance.", "Pendant le chantier, les bus emprunteront la déviation par le nord et une navette fluviale passera toutes les demi-heures."),
            ("zh", "市议会周二决定全面翻修河上的旧桥，预计明年夏天结束前重新开放通行，工程费用约为四千万欧元，由市政府和州政府共同承担。", "市长在会后表示，施工期间公交车将绕行北部道路，渡轮每半小时增开一班，以减少市民出行的不便，并请大家理解配合。", "不少市民表示支持这项决定，认为旧桥年久失修，早就应该彻底维修，但也有商户担心施工会影响附近的生意和客流。"),
            ("ja", "市議会は火曜日、川に架かる古い橋を全面的に改修し、来年の夏までに再び通行できるようにすることを決めた。費用は約四千万ユーロになる見込みだ。", "市長は会議の後、工事の間はバスが北側の迂回路を通り、フェリーも三十分ごとに増便されると説明し、市民に理解と協力を求めた。", "多くの市民はこの決定を歓迎しているが、近くの商店からは工事の影響で客足が遠のくのではないかと心配する声も上がっている。"),
        ];
        for (lang, a, b, c) in articles {
            let page = format!(
                "<html lang={lang}><head><title>{lang}</title></head><body><article><p>{a}</p><p>{b}</p><p>{c}</p></article>\
                 <form id=comments><textarea></textarea><div class=g-recaptcha></div><p>Verify you are human</p></form></body></html>"
            );
            assert!(!looks_like_challenge(&page), "{lang}");
        }
    }

    /// Vendors' block pages with a sentence or two of their own stay
    /// block pages.
    #[test]
    fn block_pages_with_a_few_sentences_stay_block_pages() {
        let cloudflare_blocked = r#"<html><head><title>Attention Required! | Cloudflare</title></head><body>
            <div id="cf-wrapper"><h1>Sorry, you have been blocked</h1><h2>You are unable to access example.com</h2>
            <p>This website is using a security service to protect itself from online attacks. The action you just performed triggered the security solution. There are several actions that could trigger this block including submitting a certain word or phrase, a SQL command or malformed data.</p>
            <p>You can email the site owner to let them know you were blocked. Please include what you were doing when this page came up and the Cloudflare Ray ID found at the bottom of this page.</p>
            <script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></div></body></html>"#;
        assert!(looks_like_challenge(cloudflare_blocked));
        let perimeterx = r#"<html><head><title>Access to this page has been denied</title></head><body>
            <div class="px-captcha-error-container"><p>Access to this page has been denied because we believe you are using automation tools to browse the website.</p>
            <p>Please make sure that Javascript and cookies are enabled on your browser and that you are not blocking them from loading.</p>
            <div id="px-captcha"></div><p>Reference ID: #6b2f0e9a</p></div></body></html>"#;
        assert!(looks_like_challenge(perimeterx));
    }

    /// The SIMD searcher over a lowercase copy and the case-insensitive
    /// automaton (its fallback) find the same markers, whatever the case.
    #[test]
    fn both_searchers_agree() {
        let packed = PACKED.as_ref().expect("SIMD on the test machine");
        let automaton = &*FIND;
        for html in [
            "<title>JUST A Moment</title>",
            "<div class=G-ReCaptcha></div> Access Denied",
            "<p>Press &amp; hold</p><p>PRESS & HOLD</p>",
            "<p>nothing to see</p>",
        ] {
            let lower = html.to_ascii_lowercase();
            let a = markers_found(packed.find_iter(&lower).map(|m| m.pattern().as_usize()));
            let b = markers_found(automaton.find_iter(html).map(|m| m.pattern().as_usize()));
            assert_eq!(a, b, "{html}");
        }
        assert_eq!(
            markers_found(
                packed
                    .find_iter("<title>just a moment</title>")
                    .map(|m| m.pattern().as_usize())
            ),
            Some(false),
            "a phrase alone is found, and is not a marker"
        );
    }

    /// The wcxb-dev article pages with a reCAPTCHA comment form or a
    /// Cloudflare script (15 of 1,497) are content, when the set is here.
    #[test]
    fn no_wcxb_dev_page_is_a_block_page() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/datasets/wcxb-dev/html");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("SKIPPED: no {}", dir.display());
            return;
        };
        let mut flagged = Vec::new();
        for entry in entries.flatten() {
            let gz = std::fs::read(entry.path()).unwrap();
            let mut html = Vec::new();
            use std::io::Read;
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut html)
                .unwrap();
            if looks_like_challenge(&String::from_utf8_lossy(&html)) {
                flagged.push(entry.file_name());
            }
        }
        assert!(flagged.is_empty(), "{flagged:?}");
    }
}
