//! Reader comments, which a page's markup names as such in any language
//! (WordPress's `#comments` and `.comment-list`, Disqus's threads, a CMS's
//! `sf_comment_text`): an article's comments are not its text, a forum
//! thread's replies are (the page type decides, as issue 30 asks).
//!
//! - Under a question page's (`QAPage`) posts: the remarks below the
//!   question and each answer go, not the answers.
//! - Under an article: a thread named comments that follows the text goes
//!   while the text outweighs it (a page made mostly of such a thread
//!   may be a forum whose replies its markup calls comments), and on a
//!   page declared an article whatever its weight. A forum posting keeps
//!   its replies.

use crate::inserts::without_marked_while_outweighed;
use gleaner_core::messages::Block;

/// Whether an element's label names it comments in its id or a class
/// (`#comments`, `.comment-copy`, `#sf_comment_list`; not `no-comments`,
/// nor `commentary`, an opinion piece's own body).
fn is_comments(label: &str) -> bool {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let names = crate::tree::names_matcher(&NAMES, &["comment"]);
    let Some(start) = label.find(['#', '.']) else {
        return false;
    };
    label[start..]
        .split(['#', '.'])
        .filter(|name| !name.is_empty() && !crate::tree::states_what_it_has(name))
        .any(|name| {
            names.find_iter(name).any(|m| {
                !name
                    .get(m.end()..m.end() + 2)
                    .is_some_and(|next| next.eq_ignore_ascii_case("ar"))
            })
        })
}

/// Whether an element's label is a list of reader comments as WordPress
/// prints them (`ol.commentlist`, `ol.comment-list`) or Blogger does
/// (`div.comment-thread`, the classic `dl#comments-block`).
fn is_comment_list(label: &str) -> bool {
    let tag = crate::tree::label_tag(label);
    let mut classes = crate::tree::label_classes(label);
    match tag {
        "ol" | "ul" => classes.any(|c| {
            c.eq_ignore_ascii_case("commentlist") || c.eq_ignore_ascii_case("comment-list")
        }),
        "div" => classes.any(|c| c == "comment-thread"),
        "dl" => label.starts_with("dl#comments-block"),
        _ => false,
    }
}

/// Whether a block lies under an element named as comments.
fn in_comments(b: &Block) -> bool {
    b.path.contains("omment") && b.path.split('/').any(is_comments)
}

/// Whether a declared page type is a forum's or a question's, whose
/// replies are its content.
pub(crate) fn is_discussion(page_type: Option<&str>) -> bool {
    matches!(
        page_type,
        Some("DiscussionForumPosting" | "QAPage" | "SocialMediaPosting")
    )
}

/// `chosen` without the comments under a question and its answers, on a
/// page that declares itself a `QAPage` (Stack Exchange's sites mark
/// theirs in microdata): the question and the answers are its content,
/// the remarks below each are not (wcxb-dev labels them out). Only while
/// the posts outweigh the comments: a forum that answers a question in
/// what it names comments (Wall Street Oasis) keeps them, its replies
/// being its content, as a `DiscussionForumPosting`'s are.
pub fn without_qa_comments(
    blocks: &[Block],
    chosen: Vec<usize>,
    page_type: Option<&str>,
) -> Vec<usize> {
    if page_type != Some("QAPage") {
        return chosen;
    }
    let comments: Vec<bool> = chosen.iter().map(|&i| in_comments(&blocks[i])).collect();
    without_marked_while_outweighed(blocks, chosen, &comments)
}

/// Share of the text's characters (those not in comments) that must come
/// before the first comment for the comments to follow the text.
const TEXT_BEFORE: f64 = 0.5;

/// `chosen` without the reader comments that follow the text, on a page
/// that is not a forum's or a question's: while the text outweighs them,
/// or whatever their weight on a page `declared` an article or in a
/// comment list as WordPress prints it.
pub fn without_trailing_comments(
    blocks: &[Block],
    chosen: Vec<usize>,
    page_type: Option<&str>,
    declared: bool,
) -> Vec<usize> {
    if is_discussion(page_type) {
        return chosen;
    }
    let comments: Vec<bool> = chosen.iter().map(|&i| in_comments(&blocks[i])).collect();
    let Some(first) = comments.iter().position(|&c| c) else {
        return chosen;
    };
    let text_chars = |range: &[usize], marks: &[bool]| -> f64 {
        range
            .iter()
            .zip(marks)
            .filter(|(_, &c)| !c)
            .map(|(&i, _)| f64::from(blocks[i].text_len))
            .sum()
    };
    let before = text_chars(&chosen[..first], &comments[..first]);
    if before < TEXT_BEFORE * text_chars(&chosen, &comments) || before == 0.0 {
        return chosen;
    }
    // A reader comment list as WordPress or Blogger prints it says what
    // the page is (a post or a page with its comments; forums print their
    // replies otherwise), so its comments go whatever their weight.
    let listed = chosen
        .iter()
        .zip(&comments)
        .any(|(&i, &c)| c && blocks[i].path.split('/').any(is_comment_list));
    if declared || listed {
        return chosen
            .into_iter()
            .zip(comments)
            .filter_map(|(i, c)| (!c).then_some(i))
            .collect();
    }
    without_marked_while_outweighed(blocks, chosen, &comments)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a question page the comments under the question and the
    /// answers go; a thread whose replies are named comments and hold
    /// most of its text keeps them, as does a page of another type.
    #[test]
    fn comments_under_a_question_and_its_answers_go() {
        let p = crate::testing::block;
        let question = p(
            "html/body/div#question/div.s-prose/p",
            &[0, 1, 2, 3, 4],
            400,
        );
        let remark = p(
            "html/body/div#question/div.comments.js-comments-container/ul/li/span.comment-copy",
            &[0, 1, 2, 5, 6, 7, 8],
            80,
        );
        let answer = p(
            "html/body/div.answer/div.s-prose/p",
            &[0, 1, 9, 10, 11],
            600,
        );
        let page = vec![question.clone(), remark, answer];
        assert_eq!(
            without_qa_comments(&page, vec![0, 1, 2], Some("QAPage")),
            vec![0, 2]
        );
        assert_eq!(
            without_qa_comments(&page, vec![0, 1, 2], Some("DiscussionForumPosting")),
            vec![0, 1, 2]
        );
        let reply = |n: u32| {
            p(
                "html/body/div.comment-container/div.comment-content/p",
                &[0, 1, n, n + 1, n + 2],
                500,
            )
        };
        let thread = vec![question, reply(20), reply(30)];
        assert_eq!(
            without_qa_comments(&thread, vec![0, 1, 2], Some("QAPage")),
            vec![0, 1, 2]
        );
        assert!(!is_comments("div.no-comments"));
    }

    /// The comments after an article's text go, named in an id or a
    /// class; those before most of the text, a forum's replies and a
    /// page made mostly of comments stay (unless declared an article).
    #[test]
    fn comments_after_an_articles_text_go() {
        let p = crate::testing::block;
        let body = |n: u32| p("html/body/article/div.cuerpo/p", &[0, 1, 2, 3, n], 400);
        let form = p(
            "html/body/article/div#sf_comment_form_container_6.box/h2",
            &[0, 1, 2, 20, 21],
            8,
        );
        let comment = |n: u32| {
            p(
                "html/body/article/div#sf_comment_list.box/div.sf_comment_text/p",
                &[0, 1, 2, 30, n],
                200,
            )
        };
        let page = vec![body(4), body(5), form, comment(31), comment(32)];
        let all = vec![0, 1, 2, 3, 4];
        assert_eq!(
            without_trailing_comments(&page, all.clone(), None, false),
            vec![0, 1]
        );
        assert_eq!(
            without_trailing_comments(&page, all.clone(), Some("DiscussionForumPosting"), false),
            all
        );
        // Comments outweighing the text stay, unless the page is declared
        // an article.
        let long = vec![
            body(4),
            comment(31),
            comment(32),
            comment(33),
            comment(34),
            comment(35),
        ];
        let all_long: Vec<usize> = (0..long.len()).collect();
        assert_eq!(
            without_trailing_comments(&long, all_long.clone(), None, false),
            all_long
        );
        assert_eq!(
            without_trailing_comments(&long, all_long.clone(), Some("NewsArticle"), true),
            vec![0]
        );
        // So do those in a comment list as WordPress prints it.
        let mut listed = long.clone();
        for b in &mut listed[1..] {
            b.path = "html/body/div#content/ol.commentlist/li#comment-7/p".into();
        }
        assert_eq!(
            without_trailing_comments(&listed, all_long.clone(), None, false),
            vec![0]
        );
        // And as Blogger prints them, threaded or classic.
        for path in [
            "html/body/div#comments.comments/div.comment-thread.toplevel-thread/ol#top-ra/li.comment/p",
            "html/body/div#comments/dl#comments-block/dd.comment-body/p",
        ] {
            let mut blogger = long.clone();
            for b in &mut blogger[1..] {
                b.path = path.into();
            }
            assert_eq!(
                without_trailing_comments(&blogger, all_long.clone(), None, false),
                vec![0],
                "{path}"
            );
        }
        // Named comments before most of the text are not a thread under it.
        let first = vec![comment(31), body(4), body(5)];
        assert_eq!(
            without_trailing_comments(&first, vec![0, 1, 2], None, false),
            vec![0, 1, 2]
        );
        assert!(is_comments("div#comments"));
        assert!(!is_comments("div.commentary-body"));
        assert!(!is_comments("div#commentary"));
    }
}
