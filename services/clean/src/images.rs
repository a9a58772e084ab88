//! The page's images that may be its article's, for a lead image where
//! the metadata names none (`og:image`, JSON-LD's `image`): the first few
//! that are no logo, icon, avatar, tracking pixel or badge, by what the
//! image's own attributes say, and not declared smaller than 100 pixels.
//! Extract takes the first one in or just above the text it chose.

use gleaner_core::messages::PageImage;

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

/// Least width or height an image may declare.
const MIN_SIDE: u32 = 100;

/// The image an `<img>` shows, if it may be the article's, sitting in or
/// before block number `before_block`.
pub(crate) fn content_image(
    img: &lol_html::html_content::Element,
    before_block: usize,
) -> Option<PageImage> {
    let src = ["src", "data-src", "data-lazy-src"]
        .iter()
        .filter_map(|a| img.get_attribute(a))
        .map(|s| s.trim().to_string())
        .find(|s| !s.is_empty() && !s.starts_with("data:"))?;
    let small = ["width", "height"].iter().any(|a| {
        img.get_attribute(a)
            .and_then(|v| v.trim().trim_end_matches("px").parse::<u32>().ok())
            .is_some_and(|n| n < MIN_SIDE)
    });
    let furniture = [
        Some(src.clone()),
        img.get_attribute("class"),
        img.get_attribute("id"),
        img.get_attribute("alt"),
    ]
    .into_iter()
    .flatten()
    .any(|v| {
        let v = v.to_ascii_lowercase();
        FURNITURE.iter().any(|f| v.contains(f))
    });
    (!small && !furniture).then(|| PageImage {
        before_block: u32::try_from(before_block).unwrap_or(u32::MAX),
        src,
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
            <p><img src="data:image/png;base64,AAAA"> <img data-src="/img/lazy.jpg"> More text.</p>"#;
        assert_eq!(
            images(page),
            vec![
                (2, "/img/bridge.jpg".to_string()),
                (5, "/img/lazy.jpg".to_string())
            ]
        );
    }
}
