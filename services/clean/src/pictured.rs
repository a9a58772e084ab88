//! The writer an author box pictures: blogs and brands' articles often
//! name their author only in the `alt` of the portrait in the author box
//! ("Headshot of Doris Munoz-Mantilla, MD", "Will Judd avatar", "Brett
//! Cruz Headshot"). The first such name on the page is kept; extract takes
//! it only when no byline names anyone.

/// Words that say an image is a portrait, around the name in its `alt`.
const PORTRAIT: &[&str] = &[
    "headshot", "avatar", "photo", "picture", "portrait", "image", "profile", "of",
];

/// Whether an image is an author's portrait: under an element named for
/// the author or an avatar, named so itself, or served from an authors'
/// folder (`/authors/sarahknowles2.jpg`); not a commenter's avatar
/// (under an element named for comments).
pub(crate) fn is_portrait(path: &str, class: Option<&str>, src: Option<&str>) -> bool {
    if holds(path, b"comment") {
        return false;
    }
    names_author(path)
        || class.is_some_and(names_author)
        || src.is_some_and(|s| holds(s, b"/author"))
}

/// Whether a label names the author or an avatar ("post-author-wrapper",
/// "author-img", "avatar"), not an "authorized dealer" logo nor a sign-in
/// box (`#authorization`). Read in place: every image of a page asks.
fn names_author(label: &str) -> bool {
    let b = label.as_bytes();
    b.windows(6).enumerate().any(|(i, w)| {
        w.eq_ignore_ascii_case(b"avatar")
            || (w.eq_ignore_ascii_case(b"author")
                && !b
                    .get(i + 6..i + 8)
                    .is_some_and(|r| r.eq_ignore_ascii_case(b"iz")))
    })
}

/// Whether `hay` holds `needle`, ASCII case aside.
fn holds(hay: &str, needle: &[u8]) -> bool {
    hay.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// The name a portrait's `alt` gives: without the words that say it is
/// a portrait ("Headshot of", "avatar") and what follows a comma (a
/// title, a role: ", MD, FOMA", ", Ironhack Tech Writer"); two to five
/// words, each capitalised, else none.
pub(crate) fn name_in_alt(alt: &str) -> Option<String> {
    let name = alt.split([',', '|', '(']).next()?.trim();
    let words: Vec<&str> = name
        .split_whitespace()
        .filter(|w| !PORTRAIT.contains(&w.to_lowercase().as_str()))
        .collect();
    let capitalised = words
        .iter()
        .all(|w| w.chars().next().is_some_and(char::is_uppercase));
    ((2..=5).contains(&words.len()) && capitalised).then(|| words.join(" "))
}

/// The writer an `<img>` under `path` portrays, if it is a portrait
/// ([`is_portrait`]) whose `alt` names someone ([`name_in_alt`]).
pub(crate) fn portrait_name(path: &str, img: &crate::images::ImgAttrs) -> Option<String> {
    let alt = img.alt.as_deref().filter(|a| a.contains(' '))?;
    if !is_portrait(path, img.class.as_deref(), img.src.as_deref()) {
        return None;
    }
    name_in_alt(&crate::entities::decode_attribute(alt))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_portraits_alt_names_the_writer() {
        for (alt, name) in [
            (
                "Headshot of Doris Munoz-Mantilla, MD, FOMA, DABOM",
                "Doris Munoz-Mantilla",
            ),
            ("Will Judd avatar", "Will Judd"),
            ("Brett Cruz Headshot", "Brett Cruz"),
            (
                "Juliette Carreiro, Ironhack Tech Writer",
                "Juliette Carreiro",
            ),
            ("Sarah Knowles MW", "Sarah Knowles MW"),
        ] {
            assert_eq!(name_in_alt(alt).as_deref(), Some(name), "{alt}");
        }
        for nothing in [
            "",
            "avatar",
            "logo",
            "Picture of crazy lennys",
            "a photo of the team at work",
        ] {
            assert_eq!(name_in_alt(nothing), None, "{nothing}");
        }
    }

    #[test]
    fn a_portrait_is_the_authors_not_a_commenters() {
        assert!(is_portrait(
            "html/body/div#post-author-wrapper/div",
            None,
            None
        ));
        assert!(is_portrait(
            "html/body/div.metadata/div",
            Some("author-img"),
            None
        ));
        assert!(is_portrait(
            "html/body/div",
            None,
            Some("/globalassets/authors/sk.jpg")
        ));
        assert!(!is_portrait(
            "html/body/ol.comment-list/li/div.comment-author",
            Some("avatar"),
            None
        ));
        assert!(!is_portrait(
            "html/body/article/figure",
            Some("wp-image-12"),
            Some("/uploads/x.jpg")
        ));
        assert!(!is_portrait(
            "html/body/div",
            Some("logo authorized-dealer-logo"),
            None
        ));
    }
}
