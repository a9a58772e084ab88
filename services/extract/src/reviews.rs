//! Customer reviews under a product's page. The product (its name, price,
//! description and specifications) is the page's content; the reviews
//! below it are other people's comments on it, as reader comments are
//! under an article (wcxb-dev labels them out of most product pages).
//! Found by the markup's own names, in any language: WooCommerce's
//! `woocommerce-review`, IKEA's `pipf-seo-reviews__review`, Thomann's
//! `review-text`, a CSS module's `review-body_content___qIss`.

use gleaner_core::messages::Block;
use std::sync::OnceLock;

/// Whether a page declares itself one product's page: a schema.org
/// `Product` (JSON-LD or microdata), or `og:type` `product` (`og:product`,
/// `product.item`; not `product.group`, which is a collection).
pub fn declared_product(page_type: Option<&str>) -> bool {
    page_type.is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        matches!(t.as_str(), "product" | "og:product" | "product.item")
    })
}

/// Class names of the other products a product's page suggests
/// ("Similar items", "Customers also bought", "Recently viewed"):
/// recirculation, as on an article's page.
const SUGGESTIONS: &[&str] = &[
    "related",
    "recommend",
    "similar",
    "also-viewed",
    "alsoviewed",
    "also-bought",
    "alsobought",
    "upsell",
    "up-sell",
    "cross-sell",
    "crosssell",
    "recently-viewed",
    "recentlyviewed",
];

/// `chosen` without the blocks under an element whose class names other
/// products suggested ([`SUGGESTIONS`]), on a page declared one
/// product's, while the rest of the text outweighs them (a shop's page
/// of several products declared as one is made of them).
pub fn without_suggestions(
    blocks: &[Block],
    chosen: Vec<usize>,
    page_type: Option<&str>,
) -> Vec<usize> {
    if !declared_product(page_type) {
        return chosen;
    }
    static NAMES: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    let names = crate::tree::names_matcher(&NAMES, SUGGESTIONS);
    let suggested = |b: &Block| {
        names.is_match(&b.path) && crate::tree::has_class_named(&b.path, |n| names.is_match(n))
    };
    let marked: Vec<bool> = chosen.iter().map(|&i| suggested(&blocks[i])).collect();
    crate::inserts::without_marked_while_outweighed(blocks, chosen, &marked)
}

/// "review" in any ASCII case.
fn review_word() -> &'static aho_corasick::AhoCorasick {
    static WORD: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    crate::tree::names_matcher(&WORD, &["review"])
}

/// Whether a class name names reviews: it holds "review" other than in
/// "overview" or "preview" (a product's overview is its content), does
/// not state what the element has (`has-reviews`, `no-reviews`) and does
/// not name their summary (`game_review_summary`, `review-score`,
/// `reviews-count`): the product's rating, like its price, describes it.
fn names_reviews(class: &str) -> bool {
    static SUMMARY: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    let matcher = review_word();
    let summary = crate::tree::names_matcher(&SUMMARY, &["summar", "score", "count"]);
    if crate::tree::states_what_it_has(class) || summary.is_match(class) {
        return false;
    }
    matcher.find_iter(class).any(|m| {
        let before = &class.as_bytes()[..m.start()];
        let ends = |word: &[u8]| {
            before.len() >= word.len()
                && before[before.len() - word.len()..].eq_ignore_ascii_case(word)
        };
        !ends(b"ove") && !ends(b"p")
    })
}

/// The depths of `path` whose element's classes name reviews.
fn review_depths(path: &str) -> Vec<usize> {
    // Most paths name no review anywhere: one scan says so.
    if !review_word().is_match(path) {
        return Vec::new();
    }
    path.split('/')
        .enumerate()
        .filter(|(_, label)| crate::tree::label_classes(label).any(names_reviews))
        .map(|(depth, _)| depth)
        .collect()
}

/// The tag of `path`'s element at `depth`.
fn tag_at(path: &str, depth: usize) -> &str {
    crate::tree::label_tag(path.split('/').nth(depth).unwrap_or(""))
}

/// `chosen` without the blocks under reviews, on a page that declares
/// itself a product's, when the reviews repeat (two or more elements of
/// one tag named as reviews side by side under one parent: a list of
/// customers' reviews) and the rest of the text outweighs them. One
/// element named so is a review the page is (a tech site marks the
/// gadget it reviews as a `Product`), whose text is the content.
pub fn without_reviews(
    blocks: &[Block],
    chosen: Vec<usize>,
    page_type: Option<&str>,
) -> Vec<usize> {
    if !declared_product(page_type) {
        return chosen;
    }
    let depths: Vec<Vec<usize>> = chosen
        .iter()
        .map(|&i| review_depths(&blocks[i].path))
        .collect();
    // (parent element, tag) -> the review elements under it.
    let mut siblings: std::collections::HashMap<(u32, &str), Vec<u32>> = Default::default();
    for (&i, ds) in chosen.iter().zip(&depths) {
        let b = &blocks[i];
        for &d in ds {
            if let (Some(&parent), Some(&me)) = (
                d.checked_sub(1).and_then(|p| b.ancestors.get(p)),
                b.ancestors.get(d),
            ) {
                let seen = siblings.entry((parent, tag_at(&b.path, d))).or_default();
                if !seen.contains(&me) {
                    seen.push(me);
                }
            }
        }
    }
    if siblings.values().all(|elements| elements.len() < 2) {
        return chosen;
    }
    // Only while the rest outweighs them: on wcxb-dev the pages whose
    // reviews outweigh their own text label them content (a pest control
    // firm's testimonials, a flask's reviews under a three-line blurb).
    let reviews: Vec<bool> = depths.iter().map(|ds| !ds.is_empty()).collect();
    crate::inserts::without_marked_while_outweighed(blocks, chosen, &reviews)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::block;

    #[test]
    fn review_names_leave_overviews_and_previews() {
        for yes in [
            "review-text",
            "woocommerce-review__author",
            "pipf-seo-reviews__review",
            "ReviewBody",
        ] {
            assert!(names_reviews(yes), "{yes}");
        }
        for no in [
            "game_review_summary",
            "review-score",
            "overview",
            "product-overview",
            "preview",
            "image-preview",
            "has-reviews",
            "no-review",
        ] {
            assert!(!names_reviews(no), "{no}");
        }
    }

    /// On a product's page the products it suggests go, the product's own
    /// text staying, unless they outweigh it (a shop's page of products
    /// declared as one); on other pages they stay.
    #[test]
    fn suggested_products_under_a_product_go() {
        let page = [
            block("html/body/main/div.product-info/p", &[0, 1, 2, 3, 4], 900),
            block(
                "html/body/main/section.similar-products/ul/li",
                &[0, 1, 2, 5, 6, 7],
                200,
            ),
            block(
                "html/body/main/div.recently-viewed/a",
                &[0, 1, 2, 8, 9],
                200,
            ),
            block("html/body/main/div.has-related/p", &[0, 1, 2, 10, 11], 200),
        ];
        let all = || (0..page.len()).collect::<Vec<_>>();
        assert_eq!(without_suggestions(&page, all(), Some("Product")), [0, 3]);
        assert_eq!(
            without_suggestions(&page, all(), Some("NewsArticle")),
            all()
        );
        assert_eq!(without_suggestions(&page, all(), None), all());
        let shop = [
            block("html/body/main/div.product-info/p", &[0, 1, 2, 3, 4], 100),
            page[1].clone(),
            page[2].clone(),
        ];
        let all = || (0..shop.len()).collect::<Vec<_>>();
        assert_eq!(without_suggestions(&shop, all(), Some("Product")), all());
    }

    /// On a product's page the reviews go and the description stays,
    /// unless the reviews outweigh it; on a page of another type, or one
    /// with a single element named as a review (a review of the product),
    /// all stays.
    #[test]
    fn reviews_under_a_product_go() {
        let page = [
            block(
                "html/body/main/div.product-overview/p",
                &[0, 1, 2, 3, 4],
                300,
            ),
            block("html/body/main/div.specs/ul/li", &[0, 1, 2, 5, 6, 7], 100),
            block(
                "html/body/main/ol/li.review/div/p",
                &[0, 1, 2, 8, 9, 10, 11],
                900,
            ),
            block(
                "html/body/main/ol/li.review/div/p",
                &[0, 1, 2, 8, 12, 13, 14],
                900,
            ),
        ];
        let all = || (0..page.len()).collect::<Vec<_>>();
        // The reviews outweigh the product's own text: they stay.
        assert_eq!(without_reviews(&page, all(), Some("Product")), all());
        let page = [
            block(
                "html/body/main/div.product-overview/p",
                &[0, 1, 2, 3, 4],
                1900,
            ),
            page[1].clone(),
            page[2].clone(),
            page[3].clone(),
        ];
        assert_eq!(without_reviews(&page, all(), Some("Product")), vec![0, 1]);
        assert_eq!(
            without_reviews(&page, all(), Some("og:product")),
            vec![0, 1]
        );
        assert_eq!(without_reviews(&page, all(), Some("NewsArticle")), all());
        assert_eq!(without_reviews(&page, all(), Some("product.group")), all());
        assert_eq!(without_reviews(&page, all(), None), all());
        let review_article = [
            block(
                "html/body/article/div.review-body/p",
                &[0, 1, 2, 3, 4],
                3000,
            ),
            block(
                "html/body/article/div.review-body/p",
                &[0, 1, 2, 3, 5],
                3000,
            ),
            block("html/body/article/aside.specs/p", &[0, 1, 2, 6, 7], 200),
        ];
        assert_eq!(
            without_reviews(&review_article, vec![0, 1, 2], Some("Product")),
            vec![0, 1, 2]
        );
    }
}
