//! The element tree behind a page's blocks, rebuilt from each block's
//! ancestor ids, with text and link totals per element. It lets extraction
//! reason about containers (the element that holds the article) rather than
//! only about runs of blocks.

use crate::fx::FxMap;
use crate::Feat;
use gleaner_core::messages::Block;

pub struct Node {
    /// First and last block (inclusive) under this element.
    pub first: usize,
    pub last: usize,
    pub words: f64,
    pub prose: f64,
    /// Whether the element's own tag, id or classes mark it as page chrome.
    pub chrome: bool,
}

pub struct Tree {
    pub nodes: Vec<Node>,
    /// For each block, its elements from the root down.
    pub chain: Vec<Vec<usize>>,
    /// For each element, what it or any of its ancestors is marked as.
    marks: Vec<Marks>,
}

/// What an element or any of its ancestors is, by tag, id and class.
#[derive(Clone, Copy, Default)]
pub struct Marks {
    pub chrome: bool,
    pub content_named: bool,
    /// `<article>` or `<main>`.
    pub article: bool,
    /// `<nav>`, `<header>`, `<footer>` or `<aside>`.
    pub layout: bool,
    /// `<nav>`, `<footer>` or `<aside>` (a `<header>` may hold the headline).
    pub chrome_tag: bool,
}

/// Names in ids and classes that mark navigation, ads and other chrome.
const CHROME_NAMES: &[&str] = &[
    "nav",
    "menu",
    "footer",
    "sidebar",
    "breadcrumb",
    "share",
    "sharing",
    "social",
    "related",
    "promo",
    "advert",
    "cookie",
    "banner",
    "subscribe",
    "newsletter",
    "popup",
    "modal",
    "widget",
    "skip",
    "pagination",
    "pager",
    "signup",
    "login",
    "toolbar",
    "masthead",
    "sponsor",
    "recommend",
    "outbrain",
    "taboola",
    "disclaimer",
];
/// Names that mark content and overrule the above (`article-share` stays chrome
/// only if no content word appears: `post-content-nav` is ambiguous, kept).
const CONTENT_NAMES: &[&str] = &[
    "content", "article", "main", "post", "entry", "story", "text", "body", "blog",
];

pub fn is_chrome(label: &str) -> bool {
    let tag = label.split(['#', '.']).next().unwrap_or("");
    if matches!(tag, "nav" | "aside" | "footer") {
        return true;
    }
    let names = label[tag.len()..].to_ascii_lowercase();
    if names.is_empty() {
        return false;
    }
    CHROME_NAMES.iter().any(|n| names.contains(n))
        && !CONTENT_NAMES.iter().any(|n| names.contains(n))
}

/// Whether an id or class names content (`article-body`, `post`, `main`).
pub fn has_content_name(label: &str) -> bool {
    let tag = label.split(['#', '.']).next().unwrap_or("");
    let names = label[tag.len()..].to_ascii_lowercase();
    !names.is_empty() && CONTENT_NAMES.iter().any(|n| names.contains(n))
}

pub fn build(blocks: &[Block], feats: &[Feat]) -> Tree {
    let mut nodes: Vec<Node> = Vec::new();
    let mut marks: Vec<Marks> = Vec::new();
    let mut by_id: FxMap<u64, usize> = FxMap::default();
    let mut chain = Vec::with_capacity(blocks.len());
    for (bi, b) in blocks.iter().enumerate() {
        let labels: Vec<&str> = b.path.split('/').collect();
        // Blocks from older messages have no ids: a path prefix stands in.
        let ids: Vec<u64> = if b.ancestors.len() == labels.len() {
            b.ancestors.iter().map(|&a| u64::from(a)).collect()
        } else {
            (0..labels.len())
                .map(|i| gleaner_core::util::fnv1a64(labels[..=i].join("/").as_bytes()))
                .collect()
        };
        let mut c = Vec::with_capacity(ids.len());
        let mut above = Marks::default();
        for (id, label) in ids.iter().zip(&labels) {
            let idx = *by_id.entry(*id).or_insert_with(|| {
                let tag = label.split(['#', '.']).next().unwrap_or("");
                marks.push(Marks {
                    chrome: above.chrome || is_chrome(label),
                    content_named: above.content_named || has_content_name(label),
                    article: above.article || matches!(tag, "article" | "main"),
                    layout: above.layout || matches!(tag, "nav" | "header" | "footer" | "aside"),
                    chrome_tag: above.chrome_tag || matches!(tag, "nav" | "footer" | "aside"),
                });
                nodes.push(Node {
                    first: bi,
                    last: bi,
                    words: 0.0,
                    prose: 0.0,
                    chrome: is_chrome(label),
                });
                nodes.len() - 1
            });
            let n = &mut nodes[idx];
            n.last = bi;
            n.words += feats[bi].words;
            n.prose += feats[bi].words * (1.0 - feats[bi].link_density);
            above = marks[idx];
            c.push(idx);
        }
        chain.push(c);
    }
    Tree {
        nodes,
        chain,
        marks,
    }
}

impl Tree {
    /// The marks of a block's innermost element (which include its ancestors').
    pub fn marks_of(&self, block: usize) -> Marks {
        self.chain[block]
            .last()
            .map(|&n| self.marks[n])
            .unwrap_or_default()
    }

    /// The deepest element holding every block of `first..=last`.
    pub fn common_ancestor(&self, first: usize, last: usize) -> Option<usize> {
        let (a, b) = (self.chain.get(first)?, self.chain.get(last)?);
        a.iter()
            .zip(b)
            .take_while(|(x, y)| x == y)
            .last()
            .map(|(x, _)| *x)
    }

    /// Whether a block sits in chrome below `container` (chrome above the
    /// container does not count: the container was chosen for its text).
    pub fn in_chrome_below(&self, block: usize, container: usize) -> bool {
        let c = &self.chain[block];
        match c.iter().position(|&n| n == container) {
            Some(pos) => c[pos + 1..].iter().any(|&n| self.nodes[n].chrome),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_chrome;

    #[test]
    fn chrome_labels() {
        assert!(is_chrome("nav"));
        assert!(is_chrome("div#sidebar.widget"));
        assert!(is_chrome("ul.social-share"));
        assert!(!is_chrome("div.article-body"));
        assert!(!is_chrome("div.post-share-content"));
        assert!(!is_chrome("p"));
    }
}
