//! What surrounds an article's text on its page, named as such in its
//! classes: recirculation, sign-up prompts, share and like bars, an
//! author's bio box. Gone from a page declared an article only: on a
//! collection or a listing the "popular" items are the content.

use gleaner_core::messages::Block;

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
    // often under a `subscriber-content` class).
    "signup",
    "sign-up",
    "subscribe",
    // Only a class that is "newsletter" itself or its BEM parts
    // (`newsletter--inline`, `newsletter__form`): Substack's posts are
    // under `newsletter-post` (any class holding it: wcxb-dev 0.8906 ->
    // 0.8782).
    "newsletter",
    // Mailchimp for WordPress's sign-up form.
    "mc4wp-form",
    // Share and like bars: Jetpack's (`sharedaddy`, on WordPress.com and
    // self-hosted WordPress), and a class that says no content.
    "sharedaddy",
    "robots-nocontent",
    // An author's bio box, below the text as a rule.
    "author-bio",
    "authorbio",
    "about-the-author",
    "about-author",
    "author-box",
    "authorbox",
    "author-card",
    "author__bio",
    "bio-box",
    // A call to action (`call-to-action`, React's `CallToActionBox`,
    // WP Recipe Maker's `wprm-call-to-action`) and the disclosures and
    // consent lines set around an article's text (`disclaimer`:
    // "Purchases made through our links may earn us a commission", "By
    // entering your email address you agree to our Terms").
    "call-to-action",
    "calltoaction",
    "disclaimer",
    // What a tooltip shows on hover, written into the page beside the
    // word it explains: a glossary's definition (`Term_tooltipBubble`,
    // `tooltiptext`) or the byline's author card (Dotdash Meredith's
    // `mntl-author-tooltip`, on its forty-odd magazines). Not the
    // `tooltip` element itself, which holds the word.
    "tooltiptext",
    "tooltip-text",
    "tooltip_text",
    "tooltipbubble",
    "tooltip-bubble",
    "tooltip-content",
    "tooltip__content",
    "author-tooltip",
];

/// Whether one of a block's elements is named as recirculation (a class
/// holding a [`RECIRCULATION`] name, unless it states what the
/// element has: `has-related`, `no-popular`).
fn in_recirculation(b: &Block) -> bool {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let names = crate::tree::names_matcher(&NAMES, RECIRCULATION);
    // Most paths name none of them anywhere: one scan says so.
    if !names.is_match(&b.path) {
        return false;
    }
    if related_by_id(&b.path) {
        return true;
    }
    // Classes only: ids are often a heading's words made a slug
    // (`#babbel-the-most-popular-app`), or name a region that holds text
    // and links both.
    crate::tree::has_class_named(&b.path, |name| {
        names.find_iter(name).any(|m| {
            let rest = &name[m.end()..];
            match RECIRCULATION[m.pattern().as_usize()] {
                "subscribe" => !rest.starts_with(['r', 'R']),
                "newsletter" => {
                    m.start() == 0
                        && (rest.is_empty() || rest.starts_with("--") || rest.starts_with("__"))
                }
                _ => true,
            }
        })
    })
}

/// What an element's id names after "related" when it is a list of
/// related articles: `#related-posts`, `#relatedArticles`,
/// `#related_content`. Not any id holding "related": a heading's slug
/// (`#related-work`, a paper's section) is text.
const RELATED_IDS: &[&str] = &[
    "posts", "post", "articles", "article", "stories", "content", "news", "entries", "items",
];

/// Whether an element of `path` has an id that says it lists related
/// articles ([`RELATED_IDS`]).
fn related_by_id(path: &str) -> bool {
    path.split('/').any(|label| {
        let Some((_, after)) = label.split_once('#') else {
            return false;
        };
        let id = after.split('.').next().unwrap_or("").to_ascii_lowercase();
        id.strip_prefix("related")
            .is_some_and(|rest| RELATED_IDS.contains(&rest.trim_start_matches(['-', '_'])))
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

    use crate::testing::block;

    /// The blocks `without_recirculation` keeps of a page whose blocks
    /// were all chosen.
    fn kept(page: &[Block], declared: bool) -> Vec<usize> {
        without_recirculation(page, (0..page.len()).collect(), declared)
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
        assert_eq!(kept(&page, true), vec![0, 2, 3]);
        assert_eq!(kept(&page, false), vec![0, 1, 2, 3, 4]);
    }

    /// A prompt to subscribe goes, a body kept for subscribers stays; so
    /// do an author's bio box, a newsletter box (not a Substack post), a
    /// share bar, a call to action, a disclosure and a list of related
    /// posts named in its id (not a paper's "related work").
    #[test]
    fn prompts_and_bio_boxes_go_a_subscribers_body_stays() {
        let page = [
            block("html/body/div.subscriber-content/p", &[0, 1, 2], 300),
            block("html/body/div.box-subscribe/p", &[0, 1, 3], 20),
            block("html/body/div.about-the-author/p", &[0, 1, 4], 25),
            block("html/body/div.Subscribers-only/p", &[0, 1, 5], 200),
            block(
                "html/body/div.newsletter.newsletter--inline/p",
                &[0, 1, 6],
                20,
            ),
            block("html/body/div.newsletter-post/p", &[0, 1, 7], 300),
            block("html/body/div#jp-post-flair.sharedaddy/h3", &[0, 1, 8], 15),
            block(
                "html/body/div#related_posts/ul/li/p",
                &[0, 1, 9, 10, 11],
                40,
            ),
            block("html/body/section#related-work/p", &[0, 1, 12, 13], 200),
            block("html/body/div.author__bio/p", &[0, 1, 14], 30),
            block(
                "html/body/div.CallToActionBox_text__qdtgI/p",
                &[0, 1, 15],
                30,
            ),
            block("html/body/div.disclaimer-container/p", &[0, 1, 16], 30),
            block(
                "html/body/p/span.Term_tooltip/span.Term_tooltipBubble__muCRN",
                &[0, 1, 17, 18, 19],
                30,
            ),
            block("html/body/p/span.tooltip", &[0, 1, 20, 21], 30),
        ];
        assert_eq!(kept(&page, true), vec![0, 3, 5, 8, 13]);
    }
}
