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
    // A post's text, not a teaser's link: a sidebar of "more" cards, each
    // an `<article>` of one linked headline, is no thread of posts.
    let prose = |b: &Block| b.link_text_len * 2 < b.text_len;
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

    /// The blocks kept of a page whose blocks were all chosen.
    fn kept(page: &[(Block, f64)], declared: bool) -> Vec<usize> {
        let (blocks, words): (Vec<Block>, Vec<f64>) = page.iter().cloned().unzip();
        within_article(&blocks, &words, (0..blocks.len()).collect(), declared, None)
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

    /// Linked headlines beside the article, each in an `<article>` of
    /// the same tags, are no thread of posts: they go; replies of prose
    /// in such elements stay.
    #[test]
    fn a_sidebar_of_linked_teasers_in_articles_goes() {
        let linked = |n: u32| {
            let (mut b, w) = block(
                "html/body/main/div.side/article.list-article/div",
                &[0, 1, 2, n, n + 1, n + 2],
                12,
            );
            b.link_text_len = b.text_len;
            (b, w)
        };
        let body = block(
            "html/body/main/div.col/article.article/p",
            &[0, 1, 2, 3, 4, 5],
            400,
        );
        let page = [body.clone(), linked(10), linked(20)];
        assert_eq!(run(&page), vec![0]);
        let reply = block(
            "html/body/main/div.side/article.reply/p",
            &[0, 1, 2, 30, 31, 32],
            40,
        );
        assert_eq!(run(&[body, reply]), vec![0, 1]);
    }

    /// A page declared an article that goes on with the site's next
    /// articles, each a look-alike `<article>` with its own heading: the
    /// one holding the headline (block 1) is the page's, and the
    /// section's heading above it goes. Without a headline, or on a page
    /// not declared an article (a thread of posts), all stay.
    #[test]
    fn an_endless_scroll_keeps_the_article_of_the_headline() {
        let story = |n: u32, words: usize| {
            [
                block("html/body/main/article.item/h2", &[0, 1, 2, n, n + 1], 6),
                block("html/body/main/article.item/p", &[0, 1, 2, n, n + 2], words),
                block("html/body/main/article.item/p", &[0, 1, 2, n, n + 3], words),
            ]
        };
        let mut page = vec![block("html/body/main/h1", &[0, 1, 2, 3], 4)];
        page.extend(story(10, 300));
        page.extend(story(20, 500));
        page.extend(story(30, 400));
        let (blocks, words): (Vec<Block>, Vec<f64>) = page.iter().cloned().unzip();
        let chosen: Vec<usize> = (0..blocks.len()).filter(|&i| i != 1).collect();
        let kept = |declared, headline| {
            within_article(&blocks, &words, chosen.clone(), declared, headline)
        };
        assert_eq!(kept(true, Some(1)), vec![2, 3]);
        assert_eq!(kept(true, None), chosen);
        assert_eq!(kept(false, Some(1)), chosen);
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
        let post = |path: &str| [block(path, &[0, 1, 2], 10).0];
        assert!(a_wordpress_post(&post(
            "html/body.single.single-post.postid-7/p"
        )));
        assert!(!a_wordpress_post(&post("html/body.page.page-id-7/p")));
        assert!(!a_wordpress_post(&post("html/body/div.single-post/p")));
    }

    /// An element named as the article's body (here a blog's
    /// `article-content-inner`) ends a declared article as an `<article>`
    /// does: the comments and the sidebar after it go, and above it a
    /// standfirst beside it stays while the blog's header goes. A page not
    /// declared an article keeps them all (on a Q&A page
    /// `js-post-body` names the question and each answer), and so does
    /// text React streams to the end of the markup.
    #[test]
    fn an_element_named_as_the_body_ends_a_declared_article() {
        let page = [
            block("html/body/div#header/h2", &[0, 1, 2, 3], 30),
            block(
                "html/body/div#main/div#content/div.article/p.lead",
                &[0, 1, 7, 8, 4, 9],
                30,
            ),
            block(
                "html/body/div#main/div#content/div.article/div.article-content-inner/p",
                &[0, 1, 7, 8, 4, 5, 6],
                400,
            ),
            block(
                "html/body/div.comment-box/ul.single-post/li.post-text",
                &[0, 1, 10, 11, 12],
                250,
            ),
            block("html/body/div#sidebar/ul/li", &[0, 1, 13, 14, 15], 80),
        ];
        // The blog's header above the whole page goes with the comments
        // and the sidebar; the standfirst beside the body stays.
        assert_eq!(kept(&page, true), vec![1, 2]);
        assert_eq!(kept(&page, false), vec![0, 1, 2, 3, 4]);
        let streamed = [
            block("html/body/div.article-body/p", &[0, 1, 2, 3], 300),
            block("html/body/div#S:9/div/p", &[0, 1, 4, 5, 6], 250),
            block("html/body/div#S:x/p", &[0, 1, 7, 8], 20),
        ];
        assert_eq!(kept(&streamed, true), vec![0, 1]);
        assert!(is_article_label("div#main.entry-content", true));
        assert!(!is_article_label("div#main.entry-content", false));
        assert!(!is_article_label("li.post-content", true));
        // trafilatura's other spellings, in any case: `articleContent`,
        // `post_text`, and Nikkei's `cmn-article_text`.
        assert!(is_article_label("div#articleContent", true));
        assert!(is_article_label("div.post_text", true));
        assert!(is_article_label("div.cmn-article_text.a-cf", true));
        assert!(!is_article_label("li.post-text", true));
        assert!(!is_article_label("div.mini-cart-content", true));
        assert!(is_article_label("article", false));
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
