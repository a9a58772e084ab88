//! Tests of boundary.rs: where an article's element ends it.

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
    let kept =
        |declared, headline| within_article(&blocks, &words, chosen.clone(), declared, headline);
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

/// A paywalled article: a teaser in the body element, the chosen
/// text around it mostly the site's links (topic tags, a ranking).
#[test]
fn links_beside_a_teasers_body_go_from_a_declared_article() {
    let linked = |(mut b, w): (Block, f64), share: u32| {
        b.link_text_len = b.text_len * share / 100;
        (b, w)
    };
    let page = [
        linked(
            block("html/body/div.main/dl.topics/dd", &[0, 1, 2, 3, 4], 3),
            100,
        ),
        block(
            "html/body/div.main/div.article_text/p",
            &[0, 1, 2, 5, 6],
            90,
        ),
        linked(
            block("html/body/div.main/div.article_text/p", &[0, 1, 2, 5, 7], 5),
            100,
        ),
        block("html/body/div.main/p.paywall", &[0, 1, 2, 8], 20),
        linked(
            block("html/body/div.side/ul.ranking/li", &[0, 1, 9, 10, 11], 12),
            100,
        ),
        linked(
            block("html/body/div.side/ul.ranking/li", &[0, 1, 9, 10, 12], 12),
            85,
        ),
        linked(block("html/body/div.side/p", &[0, 1, 9, 13], 40), 40),
    ];
    let (blocks, words): (Vec<Block>, Vec<f64>) = page.iter().cloned().unzip();
    let all: Vec<usize> = (0..blocks.len()).collect();
    // The teaser and a link in it stay, as does text that mostly is
    // not a link; the tags and the ranking go.
    assert_eq!(
        without_links_beside_the_body(&blocks, &words, all.clone(), true),
        vec![1, 2, 3, 6]
    );
    // Only on a page declared an article, and only beside an element
    // named as the body (not an `<article>`: a listing's teasers).
    assert_eq!(
        without_links_beside_the_body(&blocks, &words, all.clone(), false),
        all
    );
    let mut unnamed = blocks.clone();
    for b in &mut unnamed {
        b.path = b.path.replace("div.article_text", "article");
    }
    assert_eq!(
        without_links_beside_the_body(&unnamed, &words, all.clone(), true),
        all
    );
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
