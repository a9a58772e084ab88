//! How `gleaner eval` judges an article's metadata against a label.

#[derive(Default)]
pub(crate) struct Hits {
    pub(crate) right: usize,
    pub(crate) total: usize,
}

impl Hits {
    pub(crate) fn add(&mut self, ok: bool) {
        self.total += 1;
        self.right += usize::from(ok);
    }
    pub(crate) fn share(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.right as f64 / self.total as f64
        }
    }
}

/// Text as the metric's tokens (eval.rs's `tokens`) joined by spaces.
pub(crate) fn norm(s: &str) -> String {
    gleaner_text::word_runs(s).join(" ")
}

/// Separators between a headline and the site's name in a `<title>`.
const SITE_SEPARATORS: &[&str] = &[
    " | ", " - ", " – ", " — ", " :: ", " · ", " » ", " / ", "_", " [", "（", " (",
];

/// (as labelled, the label's site name aside): whether the title is the
/// label, and whether it is the label or, split at a title separator, its
/// first part or its longest. The labels of both shared sets are mostly the
/// page's `<title>` with the site's name ("Story | eHow", "Story_科技_腾讯网"),
/// which gleaner's title leaves out by design (issue 30: the headline, not
/// the site name's suffix); the second figure says how often the headline
/// is right. A later part no longer than another (a doc site's name after
/// a headline) does not count.
pub(crate) fn title_matches(pred: Option<&str>, truth: &str) -> (bool, bool) {
    let Some(p) = pred.map(norm).filter(|p| !p.is_empty()) else {
        return (false, false);
    };
    if p == norm(truth) {
        return (true, true);
    }
    let aside = SITE_SEPARATORS.iter().any(|sep| {
        let parts: Vec<&str> = truth
            .split(sep)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let len = |s: &str| s.chars().count();
        parts.iter().enumerate().any(|(i, part)| {
            let longest = parts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .all(|(_, o)| len(o) < len(part));
            norm(part) == p && parts.len() > 1 && (i == 0 || longest)
        })
    });
    (false, aside)
}

pub(crate) fn date_matches(pred: Option<&str>, truth: &str) -> bool {
    let want = gleaner_extract::normalise_date(truth).unwrap_or_else(|| truth.to_string());
    pred.is_some_and(|p| p.get(..10) == want.get(..10))
}

/// A language tag's primary subtag, lowercase (`en-US` is `en`).
pub(crate) fn primary_language(tag: &str) -> String {
    tag.trim()
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Languages match on their primary subtag.
pub(crate) fn language_matches(pred: Option<&str>, truth: &str) -> bool {
    pred.is_some_and(|p| primary_language(p) == primary_language(truth))
}

/// An author is right when one contains the other ("Jane Doe" in "By Jane
/// Doe"), or when both name the same people however the list is written
/// ("A, B and C" as labelled, "A, B, C" as `author` joins `authors`).
pub(crate) fn author_matches(pred: Option<&str>, truth: &str) -> bool {
    let (p, t) = (norm(pred.unwrap_or("")), norm(truth));
    !p.is_empty()
        && (p == t || p.contains(&t) || t.contains(&p) || names(pred.unwrap_or("")) == names(truth))
}

/// The names of a list of authors, each normalised, in order of the text.
fn names(list: &str) -> Vec<String> {
    list.split([',', ';', '&'])
        .flat_map(|part| part.split(" and "))
        .map(norm)
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authors_match_as_lists_of_names() {
        assert!(author_matches(Some("Jane Doe"), "By Jane Doe"));
        assert!(author_matches(
            Some("Danielle DeSiato, Donna Enzmann, Natalie Nguyen"),
            "Danielle DeSiato, Donna Enzmann, and Natalie Nguyen"
        ));
        assert!(author_matches(
            Some("Jared Newman, Sam Singleton"),
            "Jared Newman and Sam Singleton"
        ));
        assert!(!author_matches(
            Some("Jared Newman, Ann Lee"),
            "Jared Newman and Sam Singleton"
        ));
        assert!(!author_matches(None, "Jane Doe"));
        assert!(!author_matches(Some("Kim Park"), "Jane Doe"));
    }

    #[test]
    fn a_title_is_right_as_labelled_or_with_the_labels_site_name_aside() {
        let t = |p: &str, truth: &str| title_matches(Some(p), truth);
        assert_eq!(
            t("How to Build a Terrarium", "How to Build a Terrarium"),
            (true, true)
        );
        assert_eq!(
            t(
                "How to Build a Terrarium",
                "How to Build a Terrarium | eHow"
            ),
            (false, true)
        );
        assert_eq!(t("Mozilla", "Mozilla - Wikipedia"), (false, true));
        assert_eq!(
            t(
                "Site Reliability Engineering",
                "Google - Site Reliability Engineering"
            ),
            (false, true)
        );
        assert_eq!(
            t("新电脑已可自学", "新电脑已可自学_科技_腾讯网"),
            (false, true)
        );
        // The site's name is not the headline, nor is a part as long as it.
        assert_eq!(t("eHow", "How to Build a Terrarium | eHow"), (false, false));
        assert_eq!(
            t(
                "evolve extension for Mercurial",
                "Evolve: Shared Mutable History — evolve extension for Mercurial"
            ),
            (false, false)
        );
        assert_eq!(
            t("Another story", "How to Build a Terrarium | eHow"),
            (false, false)
        );
        assert_eq!(title_matches(None, "Story"), (false, false));
    }
}
