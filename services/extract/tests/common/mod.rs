//! What the extract stage's integration tests share.

use gleaner_core::messages::Cleaned;

/// A page as the clean stage hands it on, fetched from `url`.
pub fn cleaned_at(html: &str, url: &str) -> Cleaned {
    let (title, meta, blocks) = gleaner_clean::clean_html(html).unwrap();
    Cleaned {
        id: "x".into(),
        url: url.into(),
        final_url: url.into(),
        fetched_at: String::new(),
        title,
        meta,
        blocks,
    }
}

/// What is wrong with an article's `text`, each line labelled `what`:
/// each of `kept` that it lacks, each of `dropped` that it has.
// Each test crate compiles this module; not every one calls this.
#[allow(dead_code)]
pub fn text_failures(what: &str, text: &str, kept: &[&str], dropped: &[&str]) -> Vec<String> {
    let missing = kept
        .iter()
        .filter(|t| !text.contains(**t))
        .map(|t| format!("{what}: missing {t:?}"));
    let leaked = dropped
        .iter()
        .filter(|t| text.contains(**t))
        .map(|t| format!("{what}: kept {t:?}"));
    missing.chain(leaked).collect()
}
