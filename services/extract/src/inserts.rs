//! What a page sets inside an article's text that is not its text.
//!
//! Galleries: an "in pictures" slideshow of other stories, a carousel of
//! captioned photos. Readability drops them by their class names
//! (`widget`, `media`); here the names say "gallery", and the place
//! decides: a gallery with the article's own text both before and after
//! it, under the same parent, is an insert in the article, however many
//! captions it holds; one above the text (little but a byline before it)
//! followed by more text than its slides hold is the article's lede
//! media (a video carousel, a photo strip). A page that is a gallery (its
//! slides are its content, nothing of the text around them) is left
//! alone, as is any page not declared an article.
//!
//! Charts: the axis ticks and values of a chart drawn in HTML (ai2html's
//! artboards, as newsrooms publish their graphics) come out as runs of
//! blocks of a few characters with no letter in them ("$915", "’17",
//! "600"). A run of three or more such paragraphs goes from a declared
//! article; table cells and list items stay (a table of figures is
//! content: wcxb-dev lost 0.0003 when they went too). Inside an ai2html
//! artboard (`div.g-artboard`, the class the tool gives every graphic)
//! all the text goes, its title and worded labels too, on any page.

use gleaner_core::messages::Block;

/// Most characters a chart's tick or value label has.
const LABEL_CHARS: u32 = 8;

/// Fewest such labels in a row that make a chart.
const LABEL_RUN: usize = 3;

/// Whether a block reads as a chart's label: short, no letter, not a
/// table cell or a list item.
fn is_chart_label(b: &Block) -> bool {
    b.text_len <= LABEL_CHARS
        && !matches!(b.tag.as_str(), "td" | "th" | "tr" | "li" | "dd" | "dt")
        && !b.text.chars().any(char::is_alphabetic)
}

/// Whether a block lies in an artboard of ai2html (the newsrooms' tool
/// that turns an Illustrator graphic into HTML: `div.g-artboard`), whose
/// text is the graphic's title, labels and notes, with words too
/// ("Public debt as a share of gross domestic product", "RECESSIONS").
fn in_an_artboard(b: &Block) -> bool {
    b.path.contains("g-artboard")
        && b.path
            .split('/')
            .any(|label| crate::tree::label_classes(label).any(|c| c == "g-artboard"))
}

/// Classes that the embed code of a social network gives the
/// `<blockquote>` its script replaces with the post: what the page shows
/// before (or without) the script is the embed's links ("View this post
/// on Instagram", "A post shared by ...", "♬ original sound").
const EMBED_CLASSES: [&str; 2] = ["instagram-media", "tiktok-embed"];

/// Whether a block is a link line of a social network's embed.
fn an_embeds_link(b: &Block) -> bool {
    b.link_text_len * 2 > b.text_len
        && b.path.split('/').any(|label| {
            crate::tree::label_tag(label) == "blockquote"
                && crate::tree::label_classes(label).any(|c| EMBED_CLASSES.contains(&c))
        })
}

/// `chosen` without the link lines of Instagram's and TikTok's embeds
/// (wcxb-dev labels none of their 49 as content).
pub fn without_embed_links(blocks: &[Block], mut chosen: Vec<usize>) -> Vec<usize> {
    chosen.retain(|&i| !an_embeds_link(&blocks[i]));
    chosen
}

/// `chosen` without the text of ai2html's artboards, and on a page
/// `declared` an article, without runs of [`LABEL_RUN`] or more chart
/// labels in a row.
pub fn without_chart_labels(blocks: &[Block], chosen: Vec<usize>, declared: bool) -> Vec<usize> {
    let mut chosen = chosen;
    chosen.retain(|&i| !in_an_artboard(&blocks[i]));
    if !declared {
        return chosen;
    }
    let mut kept = vec![true; chosen.len()];
    let mut k = 0;
    while k < chosen.len() {
        let end = (k..chosen.len())
            .find(|&j| !is_chart_label(&blocks[chosen[j]]))
            .unwrap_or(chosen.len());
        if end - k >= LABEL_RUN {
            kept[k..end].fill(false);
        }
        k = end + 1;
    }
    chosen
        .into_iter()
        .zip(kept)
        .filter_map(|(i, k)| k.then_some(i))
        .collect()
}

/// Most characters of text above a gallery that leads the article (a
/// headline, a byline and a dateline; not a paragraph of the text).
const LEDE_BEFORE: u32 = 200;

/// Names, in classes, of a gallery, slideshow or carousel.
const GALLERY_NAMES: [&str; 4] = ["gallery", "slideshow", "carousel", "lightbox"];

/// [`GALLERY_NAMES`], matched in any case.
fn gallery_names() -> &'static aho_corasick::AhoCorasick {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    crate::tree::names_matcher(&NAMES, &GALLERY_NAMES)
}

/// Whether an element's label (`tag#id.class`) names it a gallery in a
/// class.
fn is_gallery(label: &str) -> bool {
    label
        .find('.')
        .is_some_and(|dot| gallery_names().is_match(&label[dot..]))
}

/// The page-unique numbers of the outermost gallery element a block lies
/// in and of that element's parent.
fn gallery_of(b: &Block) -> Option<(u32, u32)> {
    // Most paths name none: one scan says so before the path is split.
    if !gallery_names().is_match(&b.path) {
        return None;
    }
    let mut parent = None;
    for (label, &id) in b.path.split('/').zip(&b.ancestors) {
        if is_gallery(label) {
            return parent.map(|p| (id, p));
        }
        parent = Some(id);
    }
    None
}

/// `chosen` without the galleries that stand inside the article's text
/// (see the module's comment), on a page `declared` an article.
pub fn without_inline_galleries(
    blocks: &[Block],
    chosen: Vec<usize>,
    declared: bool,
) -> Vec<usize> {
    if !declared {
        return chosen;
    }
    let galleries: Vec<Option<(u32, u32)>> =
        chosen.iter().map(|&i| gallery_of(&blocks[i])).collect();
    if galleries.iter().all(Option::is_none) {
        return chosen;
    }
    // Whether chosen block `k` is text outside any gallery under `parent`.
    let text_under = |k: usize, parent: u32| {
        galleries[k].is_none() && blocks[chosen[k]].ancestors.contains(&parent)
    };
    let mut dropped = vec![false; chosen.len()];
    let mut k = 0;
    while k < chosen.len() {
        let Some((gallery, parent)) = galleries[k] else {
            k += 1;
            continue;
        };
        // The run of chosen blocks in this gallery.
        let end = (k..chosen.len())
            .find(|&j| galleries[j].map(|g| g.0) != Some(gallery))
            .unwrap_or(chosen.len());
        let before = (0..k).any(|j| text_under(j, parent));
        // Characters of chosen text outside galleries in `range`, under
        // the gallery's parent or anywhere.
        let text = |range: std::ops::Range<usize>, same_parent: bool| -> u32 {
            range
                .filter(|&j| match same_parent {
                    true => text_under(j, parent),
                    false => galleries[j].is_none(),
                })
                .map(|j| blocks[chosen[j]].text_len)
                .sum()
        };
        let slides: u32 = (k..end).map(|j| blocks[chosen[j]].text_len).sum();
        let after = text(end..chosen.len(), true);
        // Inside the text, or above it where little but a byline comes
        // first and more text than the slides hold follows.
        let inline = before && after > 0;
        let lede = text(0..k, false) < LEDE_BEFORE && text(end..chosen.len(), false) > slides;
        if inline || lede {
            dropped[k..end].fill(true);
        }
        k = end;
    }
    chosen
        .into_iter()
        .zip(dropped)
        .filter_map(|(i, d)| (!d).then_some(i))
        .collect()
}

/// `chosen` without the blocks `marked` (one flag per chosen block) while
/// the others hold more text; all of `chosen` when the marked ones hold
/// as much or more, since then they are what the page is made of (a
/// forum's replies, a page of testimonials).
pub(crate) fn without_marked_while_outweighed(
    blocks: &[Block],
    chosen: Vec<usize>,
    marked: &[bool],
) -> Vec<usize> {
    let chars = |of_marked: bool| -> u64 {
        chosen
            .iter()
            .zip(marked)
            .filter(|(_, &m)| m == of_marked)
            .map(|(&i, _)| u64::from(blocks[i].text_len))
            .sum()
    };
    if chars(true) >= chars(false) {
        return chosen;
    }
    chosen
        .into_iter()
        .zip(marked)
        .filter_map(|(i, &m)| (!m).then_some(i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chart's ticks go from a declared article; a year or a figure
    /// standing alone, a table of figures and a page not declared an
    /// article keep theirs.
    #[test]
    fn a_charts_labels_go_a_table_of_figures_stays() {
        let p = |text: &str, tag: &str| Block {
            text: text.into(),
            text_len: text.chars().count() as u32,
            tag: tag.into(),
            ..Default::default()
        };
        let page = vec![
            p("Interest payments will triple.", "p"),
            p("$915", "p"),
            p("600", "p"),
            p("’17", "p"),
            p("’28", "p"),
            p("Debt rises in recessions.", "p"),
            p("2024", "p"),
            p("12%", "td"),
            p("14%", "td"),
            p("9%", "td"),
        ];
        let all: Vec<usize> = (0..page.len()).collect();
        assert_eq!(
            without_chart_labels(&page, all.clone(), true),
            vec![0, 5, 6, 7, 8, 9]
        );
        assert_eq!(without_chart_labels(&page, all.clone(), false), all);
    }

    /// A `<p>` line at `path`, all of it link text if `link`.
    fn line(path: &str, text: &str, link: bool) -> Block {
        let chars = text.chars().count() as u32;
        Block {
            text: text.into(),
            text_len: chars,
            link_text_len: if link { chars } else { 0 },
            path: path.into(),
            tag: "p".into(),
            ..Default::default()
        }
    }

    /// An ai2html graphic's text, words and all, goes from any page; a
    /// paragraph named like it outside an artboard stays.
    #[test]
    fn an_ai2html_artboards_text_goes() {
        let at = |path: &str, text: &str| line(path, text, false);
        let art = "html/body/div#g-debt/div#g-debt-box/div#g-debt-Artboard_2.g-artboard/div#g-ai0-4.g-Layer_1.g-aiAbs/p.g-pstyle3";
        let page = vec![
            at(
                "html/body/article/p",
                "Interest payments will triple by 2028.",
            ),
            at(art, "Public debt as a share of gross domestic product"),
            at(art, "RECESSIONS"),
            at(
                "html/body/article/p.g-artboard-note",
                "Debt rises in recessions.",
            ),
        ];
        for declared in [true, false] {
            assert_eq!(
                without_chart_labels(&page, vec![0, 1, 2, 3], declared),
                vec![0, 3]
            );
        }
    }

    /// An Instagram embed's links go; its caption, a tweet's text and a
    /// quote stay.
    #[test]
    fn an_embeds_links_go() {
        let insta = "html/body/article/blockquote.instagram-media/div/a";
        let page = vec![
            line(
                "html/body/article/p",
                "Patagonia donates a share of its profits.",
                false,
            ),
            line(insta, "View this post on Instagram", true),
            line(insta, "A post shared by Patagonia (@patagonia)", true),
            line(
                "html/body/article/blockquote.twitter-tweet/p",
                "Reaching human-level AI will take years.",
                false,
            ),
            line(
                "html/body/article/blockquote/p",
                "A quote from the founder.",
                false,
            ),
            line(insta, "Our new jacket, made from recycled bottles.", false),
        ];
        assert_eq!(
            without_embed_links(&page, vec![0, 1, 2, 3, 4, 5]),
            vec![0, 3, 4, 5]
        );
    }

    fn block(path: &str, ancestors: &[u32]) -> Block {
        Block {
            text: "words of a caption or a paragraph".into(),
            text_len: 33,
            path: path.to_string(),
            ancestors: ancestors.to_vec(),
            tag: "p".into(),
            ..Default::default()
        }
    }

    /// A gallery between two paragraphs of a declared article goes, and
    /// so does one leading it; the same gallery at the article's end, a
    /// page made of slides, or a page not declared an article keep it.
    #[test]
    fn a_gallery_inside_the_text_of_an_article_goes() {
        let text = |n: u32| block("html/body/div.article-body/p", &[0, 1, 2, n]);
        let slide = |n: u32| {
            block(
                "html/body/div.article-body/div.type-gallery/ul/li/p",
                &[0, 1, 2, 3, 4, n, n + 1],
            )
        };
        let page = vec![text(10), slide(20), slide(30), text(40)];
        let all: Vec<usize> = (0..page.len()).collect();
        assert_eq!(
            without_inline_galleries(&page, all.clone(), true),
            vec![0, 3]
        );
        assert_eq!(without_inline_galleries(&page, all.clone(), false), all);
        let at_the_end = vec![text(10), slide(20), slide(30)];
        assert_eq!(
            without_inline_galleries(&at_the_end, vec![0, 1, 2], true),
            vec![0, 1, 2]
        );
        // The slides of a slideshow page lie in one gallery element,
        // with the page's intro outside it only before.
        let show = |n: u32| block("html/body/div.slideshow/div.slide/p", &[0, 1, 2, n]);
        let page = vec![text(10), show(20), show(30), show(40)];
        assert_eq!(
            without_inline_galleries(&page, vec![0, 1, 2, 3], true),
            vec![0, 1, 2, 3]
        );
        // A carousel leading the article, under a parent of its own, with
        // more text after it than its slides hold: the lede's media.
        let lede = |n: u32| {
            block(
                "html/body/main/div.lede/div.video-carousel/div",
                &[0, 1, 2, 3, n],
            )
        };
        let body = |n: u32| block("html/body/main/div.body/p", &[0, 1, 2, 9, n]);
        let page = vec![lede(20), lede(30), body(40), body(41), body(42)];
        assert_eq!(
            without_inline_galleries(&page, vec![0, 1, 2, 3, 4], true),
            vec![2, 3, 4]
        );
        let short = vec![lede(20), lede(30), lede(31), body(40)];
        assert_eq!(
            without_inline_galleries(&short, vec![0, 1, 2, 3], true),
            vec![0, 1, 2, 3],
            "the slides outweigh the text after them"
        );
        // Text after the gallery under another parent (the comments below
        // the article) does not make it an insert.
        let other = block("html/body/div.comments/p", &[0, 1, 50, 51]);
        let page = vec![text(10), slide(20), other];
        assert_eq!(
            without_inline_galleries(&page, vec![0, 1, 2], true),
            vec![0, 1, 2]
        );
    }
}
