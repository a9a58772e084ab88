//! The stop words of an article's language, left out of the terms that rank
//! its sentences: NLTK's lists (33 languages, through the stop-words
//! crate). gleaner-text's own list is a few dozen English words, kept short
//! for dedup and search; ranking sentences with NLTK's full English list
//! put a sentence from the reference first more often (within-article AUC
//! 0.934 to 0.945 on summaries-bbc100), since words such as "about",
//! "more" or "been" tie sentences that share nothing of the story.

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::LazyLock;

/// Each ISO 639-1 code's stop words, built on first use.
static LISTS: LazyLock<FxHashMap<&'static str, FxHashSet<&'static str>>> = LazyLock::new(|| {
    stop_words::available_languages()
        .iter()
        .filter_map(|&code| Some((code, stop_words::lookup(code)?.iter().copied().collect())))
        .collect()
});

/// The stop words of `language` (an ISO 639-1 code such as `en`), if NLTK
/// has a list for it.
pub fn stop_list(language: Option<&str>) -> Option<&'static FxHashSet<&'static str>> {
    LISTS.get(language?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_with_a_list_have_one_and_others_none() {
        let en = stop_list(Some("en")).expect("English");
        assert!(en.contains("about") && en.contains("been") && !en.contains("bridge"));
        assert!(stop_list(Some("de")).is_some_and(|de| de.contains("und")));
        assert!(stop_list(Some("fr")).is_some_and(|fr| fr.contains("avec")));
        assert!(stop_list(Some("xx")).is_none());
        assert!(stop_list(None).is_none());
    }
}
