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
