//! Property test over clean + extract: any input built from HTML fragments,
//! entities, CJK, control characters and arbitrary text is cleaned and
//! extracted by every method without a panic, and the output is well formed.

use gleaner_core::messages::Cleaned;
use gleaner_extract::{extract_with, Extractor, SiteState};
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "<div>",
    "</div>",
    "<p class='a b'>",
    "</p>",
    "<a href='/x'>",
    "</a>",
    "<script>",
    "</script>",
    "<style>",
    "</style>",
    "<!--",
    "-->",
    "&amp;",
    "&#x",
    "&#1234567;",
    "&nbsp",
    "<",
    ">",
    "<br>",
    "<li>",
    "<ul>",
    "</ul>",
    "<table><tr><td>",
    "</td>",
    "<h1>",
    "</h1>",
    "<title>",
    "</title>",
    "<svg>",
    "</svg>",
    "<template>",
    "<meta name='author' content='A'>",
    "<script type='application/ld+json'>{\"author\":",
    "<html lang='x'>",
    "words and more words, ",
    "中文内容测试。",
    "日本語のテキスト。",
    "\u{0}",
    "\u{feff}",
    "<!DOCTYPE html>",
    "\"'",
    "<img src=x>",
    "<noscript>",
    "<textarea>",
    "<plaintext>",
    "<xmp>",
    "<select><option>",
    "<div id='main' class=\"story wide\">",
    "<P ID=x CLASS=Nav>",
    "<section class id>",
    "<span class=\"",
    "<div id=a/b.c#d class='x&amp;y'>",
];

fn html() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(FRAGMENTS).prop_map(str::to_string),
            1 => any::<String>(),
        ],
        0..200,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    // PROPTEST_CASES=N runs more cases (300 in the test run).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300),
        ..ProptestConfig::default()
    })]

    #[test]
    fn clean_and_extract_never_panic(input in html()) {
        if let Ok((title, meta, blocks)) = gleaner_clean::clean_html(&input) {
            for b in &blocks {
                prop_assert!(!b.text.is_empty());
                prop_assert_eq!(b.text.trim(), b.text.as_str());
                prop_assert!(b.link_text_len <= b.text_len + 1);
            }
            let c = Cleaned {
                id: "f".into(), url: "http://fuzz.test/".into(), final_url: String::new(),
                fetched_at: String::new(), title, meta, blocks,
            };
            let mut site = SiteState::default();
            for which in ["auto", "qread", "density", "link-ratio", "lines", "template", "rules"] {
                let a = extract_with(&c, which.parse::<Extractor>().unwrap(), Some(&mut site));
                prop_assert!(a.text.len() <= input.len() * 4 + 16);
            }
        }
    }
}
