//! The page's images that may be its article's, for a lead image where
//! the metadata names none (`og:image`, JSON-LD's `image`): the first few
//! that are no logo, icon, avatar, tracking pixel or badge, by what the
//! image's own attributes say, and not declared smaller than 100 pixels.
//! Extract takes the first one in or just above the text it chose.

use gleaner_core::messages::PageImage;
use std::borrow::Cow;

/// Most images kept per page: the lead image is among the first.
pub(crate) const MAX_IMAGES: usize = 8;

/// Words in an image's `src`, class, id or `alt` that say it is page
/// furniture rather than a picture of the article.
const FURNITURE: &[&str] = &[
    "logo",
    "icon",
    "avatar",
    "sprite",
    "spacer",
    "pixel",
    "badge",
    "emoji",
    "gravatar",
    "banner",
    "button",
    "placeholder",
    "blank.gif",
    "loader",
    "/ads/",
    "doubleclick",
    "ico-",
    "ico_",
    // Vector images are a site's drawings (logos, icons), not photographs.
    ".svg",
];

/// Longest `src` kept, in bytes.
const MAX_URL_BYTES: usize = 2048;

/// Least width or height an image may declare.
const MIN_SIDE: u32 = 100;

/// What an `<img>`'s attributes say, read in one pass and sliced from the
/// page as written (entities and all), as [`crate::attrs::attrs_of`]
/// reads every other element's: a page may have hundreds of images.
#[derive(Default)]
pub(crate) struct ImgAttrs<'a> {
    /// The first of `src`, `data-src` and `data-lazy-src` that is set and
    /// no `data:` URL.
    pub(crate) src: Option<Cow<'a, str>>,
    pub(crate) alt: Option<Cow<'a, str>>,
    pub(crate) class: Option<Cow<'a, str>>,
    pub(crate) id: Option<Cow<'a, str>>,
    /// Whether its `width` or `height` says under [`MIN_SIDE`] pixels.
    pub(crate) small: bool,
}

/// An `<img>`'s [`ImgAttrs`].
pub(crate) fn img_attrs_of<'a>(
    el: &lol_html::html_content::Element,
    html: &'a str,
) -> ImgAttrs<'a> {
    let mut out = ImgAttrs::default();
    for (name, value) in crate::attrs::attributes(el, html) {
        let is = |n: &str| name.eq_ignore_ascii_case(n);
        if is("src") || is("data-src") || is("data-lazy-src") {
            let v = value.trim();
            if out.src.is_none() && !v.is_empty() && !v.starts_with("data:") {
                out.src = Some(value);
            }
        } else if is("alt") {
            out.alt = Some(value);
        } else if is("class") {
            out.class = Some(value);
        } else if is("id") {
            out.id = Some(value);
        } else if is("width") || is("height") {
            out.small |= value
                .trim()
                .trim_end_matches("px")
                .parse::<u32>()
                .is_ok_and(|n| n < MIN_SIDE);
        }
    }
    out
}

/// Whether a value names page furniture ([`FURNITURE`]), in any case.
fn names_furniture(value: &str) -> bool {
    static WORDS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    WORDS
        .get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(FURNITURE)
                .expect("furniture words build")
        })
        .is_match(value)
}

/// The image an `<img>` shows, if it may be the article's, sitting in or
/// before block number `before_block`.
pub(crate) fn content_image(img: &ImgAttrs, before_block: usize) -> Option<PageImage> {
    // A URL longer than any browser keeps is no picture's (and not kept).
    let src = img.src.as_deref().filter(|s| s.len() <= MAX_URL_BYTES)?;
    let furniture = [
        Some(src),
        img.class.as_deref(),
        img.id.as_deref(),
        img.alt.as_deref(),
    ]
    .into_iter()
    .flatten()
    .any(names_furniture);
    (!img.small && !furniture).then(|| PageImage {
        before_block: u32::try_from(before_block).unwrap_or(u32::MAX),
        src: crate::entities::decode_attribute(src.trim()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use crate::clean_html;

    fn images(html: &str) -> Vec<(u32, String)> {
        let (_, meta, _) = clean_html(html).unwrap();
        meta.images
            .into_iter()
            .map(|i| (i.before_block, i.src))
            .collect()
    }

    #[test]
    fn pictures_are_kept_with_their_place_and_furniture_is_not() {
        let page = r#"<header><img src="/logo.svg" alt="Site"><p>Menu of the site</p></header>
            <h1>Bridge reopens</h1>
            <figure><img src="/img/bridge.jpg" width="800" height="450"><figcaption>The bridge at dawn</figcaption></figure>
            <p>The bridge reopened today. <img src="/track.gif" width="1" height="1"></p>
            <p><img class="avatar" src="/u/jo.png"> Jo Doe</p>
            <p><img src="data:image/png;base64,AAAA" data-src="/img/lazy.jpg?w=800&amp;q=80"> More text.</p>"#;
        let long = format!("<p><img src='/{}.jpg'> Text.</p>", "a".repeat(5000));
        assert!(images(&long).is_empty());
        assert_eq!(
            images(page),
            vec![
                (2, "/img/bridge.jpg".to_string()),
                (5, "/img/lazy.jpg?w=800&q=80".to_string())
            ]
        );
    }
}
