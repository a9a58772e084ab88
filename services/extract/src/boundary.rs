//! The article's own element as a boundary: when one `<article>` element
//! holds nearly all of the text chosen, what was chosen after it (the
//! reader comments below it, a "more from" list, share bars) is not the
//! article; what comes before it (a standfirst) stays. The page's author drew that line in its
//! markup, in any language; a listing or a forum thread, whose text lies in
//! many `<article>` elements, none holding most of it, is left alone. A
//! page that declares itself an article (its JSON-LD `@type` or `og:type`)
//! loses what follows its `<article>` even when that is longer than the
//! article (a comment thread under a short post): the page type decides,
//! as a forum thread's replies are its content and a post's comments are
//! not. On such a page an element its CMS names as the article's body
//! (`div.entry-content`) draws the line as an `<article>` does.

use gleaner_core::messages::Block;

/// How many elements up from an element named as the article's body the
/// text above it may lie and still be the article's (a headline block
/// and a standfirst beside the body; not a blog's header above the
/// whole page: pixnet 0.927 -> 0.985, readability-articles 0.9603 ->
/// 0.9612, wcxb-dev 0.8909 -> 0.8910; two elements up cost a page 0.04).
const STANDFIRST_REACH: usize = 3;

/// Share of the chosen words one `<article>` element must hold (of
/// those up to its end, on a page declared an article).
const MOST: f64 = 0.8;

/// On a page declared an article, the share of all the chosen words the
/// element must hold still, so that a teaser above the text is not taken
/// for the article.
const LEAST: f64 = 0.25;

/// Whether a page's declared type (`PageMeta::page_type`) is an article
/// of some kind: `og:type` `article`, or a schema.org `Article`,
/// `NewsArticle`, `BlogPosting`, `Report`, ... (not a forum posting).
pub fn declared_article(page_type: Option<&str>) -> bool {
    page_type.is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        t.ends_with("article") || t == "blogposting" || t == "liveblogposting" || t == "report"
    })
}

/// Whether a page is declared an article: by its type
/// ([`declared_article`]) or as a WordPress post ([`a_wordpress_post`]).
pub fn declared(cleaned: &gleaner_core::messages::Cleaned) -> bool {
    declared_article(cleaned.meta.page_type.as_deref()) || a_wordpress_post(&cleaned.blocks)
}

/// Whether the page is a post as WordPress declares one: its `<body>`
/// has the class `single-post`, which WordPress gives a single post's
/// page only (pages, archives and the front page get others). Read as a
/// declared type, for the many posts whose theme declares none.
pub fn a_wordpress_post(blocks: &[Block]) -> bool {
    blocks.first().is_some_and(|b| {
        b.path.split('/').nth(1).is_some_and(|body| {
            body.starts_with("body") && crate::tree::label_classes(body).any(|c| c == "single-post")
        })
    })
}

/// Names, in an element's id or classes, of the element that holds an
/// article's body on the CMSes most pages come from (WordPress's
/// `entry-content`, Blogger's `post-body`, `article-content`,
/// `articleBody`, `story-body`): trafilatura's BODY_XPATH names (and
/// `article_text`, spelt as `post_text` is), which a page's markup uses in
/// any language (not trafilatura's `art-content`, which names a shop's
/// `cart-content` as well). The names added last (`article_text` to
/// `article__container`, `post-text` to `postentry`) moved three wcxb-dev
/// pages up (0.8937 -> 0.8938), none down. Such an element draws the
/// article's end as an `<article>` element does.
const BODY_NAMES: &[&str] = &[
    "entry-content",
    "article-content",
    "article__content",
    "article-body",
    "article__body",
    "articlebody",
    "article-text",
    "articletext",
    "article_text",
    "articlecontent",
    "article__container",
    "post-content",
    "post-text",
    "post_text",
    "postentry",
    "post_content",
    "postcontent",
    "post-body",
    "post-entry",
    "story-body",
    "story-content",
    "storycontent",
    "body-text",
];

/// Whether an element's label (`tag#id.class`) is the article's own
/// element: an `<article>`, or with `by_name` a `div`, `section` or
/// `main` named as the article's body ([`BODY_NAMES`]). Names count on a
/// page declared an article only: on a Q&A page `js-post-body` names
/// the question and each answer alike.
fn is_article_label(label: &str, by_name: bool) -> bool {
    let tag = crate::tree::label_tag(label);
    if tag == "article" {
        return true;
    }
    by_name
        && matches!(tag, "div" | "section" | "main")
        && body_names().is_match(&label[tag.len()..])
}

/// [`BODY_NAMES`], matched in any case.
fn body_names() -> &'static aho_corasick::AhoCorasick {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    crate::tree::names_matcher(&NAMES, BODY_NAMES)
}

/// The article elements ([`is_article_label`]) a block lies in, outermost
/// first: each as its page-unique number and its tag path (the labels
/// from the root down to it), which look-alike elements (a thread's
/// posts) share.
fn articles_of(b: &Block, by_name: bool) -> impl Iterator<Item = (u32, &str)> + '_ {
    // Most paths hold none: a scan of the whole path says so before it
    // is split.
    let may = b.path.contains("article") || (by_name && body_names().is_match(&b.path));
    let mut end = 0;
    b.path
        .split('/')
        .zip(&b.ancestors)
        .take_while(move |_| may)
        .filter_map(move |(label, &id)| {
            end += label.len() + usize::from(end > 0);
            is_article_label(label, by_name).then(|| (id, &b.path[..end]))
        })
}

/// A tag path's tags alone: a thread's posts differ in their ids
/// (`li#post-123`) and often in a class (the first post's
/// `message.threadAuthor`), and share their tags.
fn shape_of(path: &str) -> impl Iterator<Item = &str> + Clone {
    path.split('/').map(crate::tree::label_tag)
}

/// `chosen` without the blocks after the start of the innermost article
/// element ([`is_article_label`]) that holds at least [`MOST`] of the
/// chosen words (of those up to its end and [`LEAST`] of all on a page
/// `declared` an article; `words[i]` is block `i`'s) but outside it, if
/// one does and no chosen block of prose (less than half of it link text)
/// outside it lies in an article element of the same tag path (a forum
/// thread's replies, the other posts of a listing: the page is made of
/// such elements, and they are its content; a sidebar of linked
/// headlines, each in an `<article>`, is not).
/// Text React streams to the end of the markup stays ([`streamed`]).
///
/// On a page declared an article whose `<article>` elements are look-alike
/// full articles (a page that goes on with the site's next articles, as
/// an endless scroll does), the one holding the page's `headline` block is
/// the article, and only its text stays.
pub fn within_article(
    blocks: &[Block],
    words: &[f64],
    chosen: Vec<usize>,
    declared: bool,
    headline: Option<usize>,
) -> Vec<usize> {
    // Each chosen block's article elements, read off its path once (most
    // blocks have none, and an empty Vec does not allocate).
    let elements: Vec<Vec<(u32, &str)>> = chosen
        .iter()
        .map(|&i| articles_of(&blocks[i], declared).collect())
        .collect();
    if elements.iter().all(Vec::is_empty) {
        return chosen;
    }
    let total: f64 = chosen.iter().map(|&i| words[i]).sum();
    if total <= 0.0 {
        return chosen;
    }
    // Words chosen under each article element: (id, words, depth, path,
    // its last chosen block).
    let mut held: Vec<(u32, f64, usize, &str, usize)> = Vec::new();
    for (&i, own) in chosen.iter().zip(&elements) {
        for (depth, &(id, path)) in own.iter().enumerate() {
            match held.iter_mut().find(|h| h.0 == id) {
                Some(h) => {
                    h.1 += words[i];
                    h.4 = i;
                }
                None => held.push((id, words[i], depth, path, i)),
            }
        }
    }
    // The words an element is measured against: all chosen, or on a page
    // declared an article those up to its own last block.
    let against = |last: usize| -> f64 {
        if !declared {
            return total;
        }
        chosen
            .iter()
            .take_while(|&&i| i <= last)
            .map(|&i| words[i])
            .sum()
    };
    // Whether chosen prose outside the element `article` lies in an
    // element of the same tag path.
    let look_alike = |article: u32, shape: &str| {
        elements
            .iter()
            .zip(&chosen)
            .filter(|(own, &i)| !own.iter().any(|&(id, _)| id == article) && prose(&blocks[i]))
            .any(|(own, _)| own.iter().any(|(_, p)| shape_of(p).eq(shape_of(shape))))
    };
    // The `<article>` holding the headline, among look-alikes holding
    // prose: the page's own article, followed by others.
    let by_headline = headline
        .filter(|_| declared)
        .and_then(|h| articles_of(&blocks[h], false).last())
        .filter(|&(id, path)| held.iter().any(|x| x.0 == id) && look_alike(id, path));
    let (article, path) = match by_headline {
        Some(own) => own,
        None => {
            let Some(&(article, _, _, path, _)) = held
                .iter()
                .filter(|h| h.1 >= MOST * against(h.4) && h.1 >= LEAST * total)
                .max_by_key(|h| h.2)
            else {
                return chosen;
            };
            if look_alike(article, path) {
                return chosen;
            }
            (article, path)
        }
    };
    let inside: Vec<bool> = elements
        .iter()
        .map(|own| own.iter().any(|&(id, _)| id == article))
        .collect();
    // Only what follows the article's text: a standfirst or an intro set
    // above the element is still the article's. Above an element named
    // as the body, only what lies near it ([`STANDFIRST_REACH`]).
    let first = inside.iter().position(|&x| x).unwrap_or(0);
    let labels = path.split('/').count();
    let by_name = !path.rsplit('/').next().unwrap_or("").starts_with("article");
    let reach = (by_name && labels > STANDFIRST_REACH)
        .then(|| {
            blocks[chosen[first]]
                .ancestors
                .get(labels - 1 - STANDFIRST_REACH)
        })
        .flatten()
        .copied();
    let near = |i: usize| reach.is_none_or(|a| blocks[i].ancestors.contains(&a));
    chosen
        .into_iter()
        .enumerate()
        .filter(|&(k, i)| {
            // Above the headline's element is not the article's.
            let above = k < first && by_headline.is_none() && near(i);
            above || inside[k] || streamed(&blocks[i])
        })
        .map(|(_, i)| i)
        .collect()
}

/// `chosen` without its linked blocks (four fifths or more of their text
/// link text: a "most read" ranking, topic tags, a market ticker) outside
/// the element named as the article's body ([`BODY_NAMES`]) that holds
/// its longest paragraph of prose, on a page `declared` an article. A
/// paywalled article shows a teaser of a paragraph or two in that
/// element, too little of the chosen text for [`within_article`] to draw
/// the article's end by; what links elsewhere on such a page is the
/// site's, not the article's.
pub fn without_links_beside_the_body(
    blocks: &[Block],
    words: &[f64],
    chosen: Vec<usize>,
    declared: bool,
) -> Vec<usize> {
    if !declared {
        return chosen;
    }
    let Some(longest) = chosen
        .iter()
        .copied()
        .filter(|&i| prose(&blocks[i]))
        .max_by(|&a, &b| words[a].total_cmp(&words[b]))
    else {
        return chosen;
    };
    let named =
        |path: &str| crate::tree::label_tag(path.rsplit('/').next().unwrap_or("")) != "article";
    let Some((body, _)) = articles_of(&blocks[longest], true)
        .filter(|&(_, path)| named(path))
        .last()
    else {
        return chosen;
    };
    let linked = |b: &Block| b.text_len > 0 && b.link_text_len * 5 >= b.text_len * 4;
    chosen
        .into_iter()
        .filter(|&i| !linked(&blocks[i]) || blocks[i].ancestors.contains(&body))
        .collect()
}

/// Whether a block is prose, less than half of it link text: a post's
/// text, not a teaser's link (a sidebar of "more" cards, each an
/// `<article>` of one linked headline, is no thread of posts).
fn prose(b: &Block) -> bool {
    b.link_text_len * 2 < b.text_len
}

/// Whether a block lies in a chunk React streams after the rest of the
/// document (`<div hidden id="S:3">`, which its script moves into its
/// place): that text stands at the end of the markup, not of the page.
fn streamed(b: &Block) -> bool {
    b.path.contains("#S:")
        && b.path.split('/').any(|label| {
            label
                .split('.')
                .next()
                .and_then(|l| l.split_once("#S:"))
                .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        })
}

#[cfg(test)]
#[path = "boundary_tests.rs"]
mod tests;
