//! The stop words of an article's language, left out of the terms that rank
//! its sentences and that place it in a story: NLTK's lists (33 languages,
//! through the stop-words crate). gleaner-text's own list is a few dozen
//! English words, kept short for dedup and search; ranking sentences with
//! NLTK's full English list
//! put a sentence from the reference first more often (in a Python
//! prototype, within-article AUC 0.934 to 0.945 on summaries-bbc100),
//! since words such as "about", "more" or "been" tie sentences that share
//! nothing of the story.

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::LazyLock;

/// Each ISO 639-1 code's stop words, built on first use.
static LISTS: LazyLock<FxHashMap<&'static str, FxHashSet<&'static str>>> = LazyLock::new(|| {
    stop_words::available_languages()
        .iter()
        .filter_map(|&code| Some((code, stop_words::lookup(code)?.iter().copied().collect())))
        .collect()
});

/// The stop words of `language` (an ISO 639-1 code such as `en`), or
/// English's when NLTK has no list for it or it is unknown: English words
/// are rare in another language's text, so the list costs such a text
/// nothing, and an article whose language could not be told (a short
/// text, a pairs file without it) keeps the ranking the English list
/// gives (on summaries-bbc100 with no list at all, one sentence fell from
/// +4.1 to +2.8 R1 over the lead).
pub fn stop_list(language: Option<&str>) -> &'static FxHashSet<&'static str> {
    // Only a build of the stop-words crate without its `nltk` feature
    // would have no English list.
    static EMPTY: LazyLock<FxHashSet<&'static str>> = LazyLock::new(FxHashSet::default);
    language
        .and_then(|l| LISTS.get(l))
        .or_else(|| LISTS.get("en"))
        .unwrap_or(&EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_has_its_list_and_others_english() {
        let en = stop_list(Some("en"));
        assert!(en.contains("about") && en.contains("been") && !en.contains("bridge"));
        let de = stop_list(Some("de"));
        assert!(de.contains("und") && !de.contains("about"));
        assert!(stop_list(Some("fr")).contains("avec"));
        assert!(std::ptr::eq(stop_list(Some("xx")), en));
        assert!(std::ptr::eq(stop_list(None), en));
    }
}
