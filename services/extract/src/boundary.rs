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
//! not.

use gleaner_core::messages::Block;

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

/// The `<article>` elements a block lies in, outermost first: each as its
/// page-unique number and its tag path (the labels from the root down to
/// it), which look-alike elements (a thread's posts) share.
fn articles_of(b: &Block) -> impl Iterator<Item = (u32, &str)> + '_ {
    let mut end = 0;
    b.path
        .split('/')
        .zip(&b.ancestors)
        .filter_map(move |(label, &id)| {
            end += label.len() + usize::from(end > 0);
            (label.split(['#', '.']).next() == Some("article")).then(|| (id, &b.path[..end]))
        })
}

/// A tag path's tags alone: a thread's posts differ in their ids
/// (`li#post-123`) and often in a class (the first post's
/// `message.threadAuthor`), and share their tags.
fn shape_of(path: &str) -> impl Iterator<Item = &str> + Clone {
    path.split('/')
        .map(|label| label.split(['#', '.']).next().unwrap_or(""))
}

/// `chosen` without the blocks after the start of the innermost
/// `<article>` element that holds at least [`MOST`] of the chosen words
/// (of those up to its end and [`LEAST`] of all on a page `declared` an
/// article; `words[i]` is block `i`'s) but outside it, if one does and no
/// chosen block outside it lies in an
/// `<article>` of the same tag path (a forum thread's replies, the other
/// posts of a listing: the page is made of such elements, and they are its
/// content).
pub fn within_article(
    blocks: &[Block],
    words: &[f64],
    chosen: Vec<usize>,
    declared: bool,
) -> Vec<usize> {
    // Most pages have no <article>: a substring search says so before any
    // path is split.
    if !chosen.iter().any(|&i| blocks[i].path.contains("/article")) {
        return chosen;
    }
    let total: f64 = chosen.iter().map(|&i| words[i]).sum();
    if total <= 0.0 {
        return chosen;
    }
    // Words chosen under each <article> element: (id, words, depth,
    // path, its last chosen block).
    let mut held: Vec<(u32, f64, usize, &str, usize)> = Vec::new();
    for &i in &chosen {
        for (depth, (id, path)) in articles_of(&blocks[i]).enumerate() {
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
    let Some(&(article, _, _, path, _)) = held
        .iter()
        .filter(|h| h.1 >= MOST * against(h.4) && h.1 >= LEAST * total)
        .max_by_key(|h| h.2)
    else {
        return chosen;
    };
    let inside = |i: usize| articles_of(&blocks[i]).any(|(id, _)| id == article);
    let shape = shape_of(path);
    let look_alike = chosen
        .iter()
        .filter(|&&i| !inside(i))
        .any(|&i| articles_of(&blocks[i]).any(|(_, p)| shape_of(p).eq(shape.clone())));
    if look_alike {
        return chosen;
    }
    // Only what follows the article's text: a standfirst or an intro set
    // above the element is still the article's.
    let first = chosen.iter().copied().find(|&i| inside(i)).unwrap_or(0);
    chosen
        .into_iter()
        .filter(|&i| i < first || inside(i))
        .collect()
}

/// Names, in classes, of what surrounds an article's text on its page:
/// recirculation (lists of links to other articles: `related-articles`,
/// `jp-relatedposts`, `recommended-stories`, `trending`, `most-popular`),
/// prompts to sign up (`newsletter-signup`) and an author's bio box. The
/// tree's chrome names give way to a content name beside them
/// (`related-article` holds "article"), which these must not on an
/// article's page.
const RECIRCULATION: &[&str] = &[
    "related",
    "recommend",
    "trending",
    "popular",
    "more-stories",
    "more-from",
    // Prompts to sign up, which sit inside the article element as often
    // as after it. "subscribe" but not "subscriber" (a paywalled body is
    // often under a `subscriber-content` class); not "newsletter"
    // (Substack's posts are under `newsletter-post`: wcxb-dev 0.8906 ->
    // 0.8782).
    "signup",
    "sign-up",
    "subscribe",
    // An author's bio box, below the text as a rule.
    "author-bio",
    "authorbio",
    "about-the-author",
    "about-author",
    "author-box",
    "authorbox",
    "author-card",
];

/// Whether one of a block's elements is named as recirculation (a class
/// holding a [`RECIRCULATION`] name, unless it states what the
/// element has: `has-related`, `no-popular`).
fn in_recirculation(b: &Block) -> bool {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(RECIRCULATION)
            .expect("fixed patterns build")
    });
    // Most paths name none of them anywhere: one scan says so.
    if !names.is_match(&b.path) {
        return false;
    }
    b.path.split('/').any(|label| {
        // Classes only: ids are often a heading's words made a slug
        // (`#babbel-the-most-popular-app`), or name a region that holds
        // text and links both.
        let classes = label.find('.').map_or("", |dot| &label[dot..]);
        classes
            .split('.')
            .skip(1)
            .filter(|name| !crate::tree::states_what_it_has(name))
            .any(|name| {
                names.find_iter(name).any(|m| {
                    RECIRCULATION[m.pattern().as_usize()] != "subscribe"
                        || !name[m.end()..].starts_with(['r', 'R'])
                })
            })
    })
}

/// `chosen` without recirculation blocks ([`in_recirculation`]), on a page
/// declared an article: on a collection or a listing the "popular" items
/// are the content.
pub fn without_recirculation(blocks: &[Block], chosen: Vec<usize>, declared: bool) -> Vec<usize> {
    if !declared {
        return chosen;
    }
    chosen
        .into_iter()
        .filter(|&i| !in_recirculation(&blocks[i]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(path: &str, ancestors: &[u32], words: usize) -> (Block, f64) {
        let text = vec!["word"; words].join(" ");
        let b = Block {
            text_len: text.len() as u32,
            text,
            path: path.to_string(),
            ancestors: ancestors.to_vec(),
            tag: path.rsplit('/').next().unwrap_or("p").to_string(),
            ..Default::default()
        };
        (b, words as f64)
    }

    /// The blocks `without_recirculation` keeps of a page whose blocks
    /// were all chosen.
    fn kept_of_recirculation(page: &[(Block, f64)], declared: bool) -> Vec<usize> {
        let (blocks, _): (Vec<Block>, Vec<f64>) = page.iter().cloned().unzip();
        without_recirculation(&blocks, (0..blocks.len()).collect(), declared)
    }

    /// The blocks kept of a page whose blocks were all chosen.
    fn kept(page: &[(Block, f64)], declared: bool) -> Vec<usize> {
        let (blocks, words): (Vec<Block>, Vec<f64>) = page.iter().cloned().unzip();
        within_article(&blocks, &words, (0..blocks.len()).collect(), declared)
    }

    fn run(page: &[(Block, f64)]) -> Vec<usize> {
        kept(page, false)
    }

    #[test]
    fn comments_and_lists_outside_the_article_go() {
        let page = [
            block("html/body/main/article.post/p", &[0, 1, 2, 3, 4], 300),
            block(
                "html/body/main/article.post/div.entry/p",
                &[0, 1, 2, 3, 5, 6],
                200,
            ),
            block(
                "html/body/main/div#comments/div.c/p",
                &[0, 1, 2, 7, 8, 9],
                40,
            ),
            block("html/body/main/div.more/ul/li", &[0, 1, 2, 10, 11, 12], 15),
        ];
        assert_eq!(run(&page), vec![0, 1]);
    }

    #[test]
    fn on_a_page_declared_an_article_a_longer_comment_thread_goes_too() {
        let page = [
            block("html/body/main/article.post/p", &[0, 1, 2, 3, 4], 300),
            block(
                "html/body/main/div#comments/article.c/p",
                &[0, 1, 2, 7, 8, 9],
                400,
            ),
            block(
                "html/body/main/div#comments/article.c/p",
                &[0, 1, 2, 7, 10, 11],
                300,
            ),
        ];
        assert_eq!(kept(&page, true), vec![0]);
        assert_eq!(kept(&page, false), vec![0, 1, 2]);
        // A teaser marked up as an <article> above the text is not it.
        let page = [
            block("html/body/div/article.teaser/p", &[0, 1, 2, 3, 4], 40),
            block("html/body/div/div.text/p", &[0, 1, 2, 5, 6], 400),
        ];
        assert_eq!(kept(&page, true), vec![0, 1]);
        assert!(declared_article(Some("NewsArticle")) && declared_article(Some("article")));
        assert!(declared_article(Some("BlogPosting")));
        assert!(
            !declared_article(Some("DiscussionForumPosting")) && !declared_article(Some("website"))
        );
        assert!(!declared_article(None));
    }

    #[test]
    fn recirculation_goes_from_a_declared_article_only() {
        let page = [
            block("html/body/article.post/p", &[0, 1, 2, 3], 300),
            block(
                "html/body/article.post/div#jp-relatedposts.jp-relatedposts/div.item/p",
                &[0, 1, 2, 4, 5, 6],
                30,
            ),
            block(
                "html/body/article.post/h2#the-most-popular-app",
                &[0, 1, 2, 10],
                5,
            ),
            block(
                "html/body/article.post/div.has-related-links/p",
                &[0, 1, 2, 7, 8],
                30,
            ),
            block(
                "html/body/div.topbar__related-article__title",
                &[0, 1, 9],
                12,
            ),
        ];
        assert_eq!(kept_of_recirculation(&page, true), vec![0, 2, 3]);
        assert_eq!(kept_of_recirculation(&page, false), vec![0, 1, 2, 3, 4]);
    }

    /// A prompt to subscribe goes, a body kept for subscribers stays; so
    /// does an author's bio box.
    #[test]
    fn prompts_and_bio_boxes_go_a_subscribers_body_stays() {
        let page = [
            block("html/body/div.subscriber-content/p", &[0, 1, 2], 300),
            block("html/body/div.box-subscribe/p", &[0, 1, 3], 20),
            block("html/body/div.about-the-author/p", &[0, 1, 4], 25),
            block("html/body/div.Subscribers-only/p", &[0, 1, 5], 200),
        ];
        assert_eq!(kept_of_recirculation(&page, true), vec![0, 3]);
    }

    #[test]
    fn comments_as_articles_inside_the_post_stay_with_it() {
        // Comments marked up as <article>s inside the post's <article>.
        let page = [
            block("html/body/article/p", &[0, 1, 2, 3], 400),
            block(
                "html/body/article/section/article/p",
                &[0, 1, 2, 4, 5, 6],
                30,
            ),
            block("html/body/aside/p", &[0, 1, 7, 8], 20),
        ];
        assert_eq!(run(&page), vec![0, 1]);
    }

    #[test]
    fn a_listing_or_a_thread_of_articles_is_left_alone() {
        let page: Vec<(Block, f64)> = (0..6u32)
            .map(|n| block("html/body/main/article/p", &[0, 1, 2, 10 + n, 20 + n], 50))
            .chain([block("html/body/main/div/p", &[0, 1, 2, 30, 31], 20)])
            .collect();
        assert_eq!(run(&page), (0..7).collect::<Vec<_>>());
        // A thread: the first post holds most of the words, the replies
        // are posts of the same shape.
        let page = [
            block(
                "html/body/ol/li#post-1.message.first/article/p",
                &[0, 1, 2, 3, 4, 5],
                500,
            ),
            block(
                "html/body/ol/li#post-2.message/article/p",
                &[0, 1, 2, 6, 7, 8],
                40,
            ),
            block(
                "html/body/ol/li#post-3.message/article/p",
                &[0, 1, 2, 9, 10, 11],
                30,
            ),
        ];
        assert_eq!(run(&page), vec![0, 1, 2]);
        // No <article> at all: nothing to go by.
        let page = [
            block("html/body/div/p", &[0, 1, 2, 3], 100),
            block("html/body/div#c/p", &[0, 1, 4, 5], 10),
        ];
        assert_eq!(run(&page), vec![0, 1]);
    }
}
