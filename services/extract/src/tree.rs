//! The element tree behind a page's blocks, rebuilt from each block's
//! ancestor ids, with text and link totals per element. It lets extraction
//! reason about containers (the element that holds the article) rather than
//! only about runs of blocks.

use crate::features::Feat;
use aho_corasick::AhoCorasick;
use gleaner_core::messages::Block;
use std::sync::OnceLock;

pub struct Node {
    /// First and last block (inclusive) under this element.
    pub first: usize,
    pub last: usize,
    pub words: f64,
    pub prose: f64,
    /// Whether the element's own tag, id or classes mark it as page chrome.
    pub chrome: bool,
    /// A hash of the element's tag path (its labels from the root):
    /// elements at the same path (list items, a forum's posts) share it.
    pub path_key: u64,
}

pub struct Tree {
    pub nodes: Vec<Node>,
    /// Every block's elements from the root down, one after another
    /// (see [`Tree::chain`]).
    chain_nodes: Vec<usize>,
    chain_ends: Vec<usize>,
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
    /// A `<form>` element or inside one.
    pub form: bool,
}

impl Marks {
    /// These marks with an ancestor's added.
    fn under(self, a: Marks) -> Marks {
        Marks {
            chrome: self.chrome || a.chrome,
            content_named: self.content_named || a.content_named,
            article: self.article || a.article,
            layout: self.layout || a.layout,
            chrome_tag: self.chrome_tag || a.chrome_tag,
            form: self.form || a.form,
        }
    }
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

/// Words that contain a chrome name but mean something else: Amazon wraps
/// every part of its pages, the product grid too, in a `celwidget`.
const NEUTRAL_NAMES: &[&str] = &["celwidget", "unavailable"];

/// A matcher of class-name fragments in any ASCII case, built once into
/// `cell` (each caller keeps its own).
pub(crate) fn names_matcher(
    cell: &'static OnceLock<AhoCorasick>,
    names: &[&str],
) -> &'static AhoCorasick {
    cell.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(names)
            .expect("fixed patterns build")
    })
}

/// The element around a block's own element, as (its depth, its page-
/// unique number) in the block's `ancestors` (which end with its own
/// element); `None` for a block at the root.
pub(crate) fn parent_element(b: &Block) -> Option<(usize, u32)> {
    let depth = b.ancestors.len().checked_sub(2)?;
    Some((depth, b.ancestors[depth]))
}

/// Whether a block lies under the element `(depth, number)` (as
/// [`parent_element`] gives one).
pub(crate) fn is_under(b: &Block, (depth, number): (usize, u32)) -> bool {
    b.ancestors.get(depth) == Some(&number)
}

/// How many elements two blocks' ancestries share, from the root.
pub(crate) fn shared_ancestry(a: &Block, b: &Block) -> usize {
    a.ancestors
        .iter()
        .zip(&b.ancestors)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The tag of a path label (`div#main.post.entry` -> `div`).
pub(crate) fn label_tag(label: &str) -> &str {
    label.split(['#', '.']).next().unwrap_or("")
}

/// The class names of a path label (`div#main.post.entry` -> `post`,
/// `entry`).
pub(crate) fn label_classes(label: &str) -> impl Iterator<Item = &str> {
    let classes = label.find('.').map_or("", |dot| &label[dot..]);
    classes.split('.').skip(1)
}

/// Whether an id or class states what an element has or lacks
/// ("has-side-banner", "no-sidebar") rather than what it is.
pub(crate) fn states_what_it_has(name: &str) -> bool {
    let n = name.as_bytes();
    [&b"no-"[..], b"has-", b"with-", b"without-"]
        .iter()
        .any(|p| n.len() >= p.len() && n[..p.len()].eq_ignore_ascii_case(p))
}

/// Whether the block's element or its two nearest ancestors carry one of
/// these names (in tag, id or class).
pub(crate) fn near_names(path: &str, names: &[&str]) -> bool {
    let last = path
        .rsplit('/')
        .take(3)
        .collect::<Vec<_>>()
        .join("/")
        .to_ascii_lowercase();
    names.iter().any(|n| last.contains(n))
}

/// Whether an element of a block's `path` has a class that `named`
/// accepts, other than one stating what the element has
/// ([`states_what_it_has`]: `has-related`, `no-popular`).
pub(crate) fn has_class_named(path: &str, named: impl Fn(&str) -> bool) -> bool {
    path.split('/').any(|label| {
        label_classes(label)
            .filter(|name| !states_what_it_has(name))
            .any(&named)
    })
}

/// Whether a path label is chrome (by tag, or by id/class names) and
/// whether its id or classes name content (`article-body`, `post`, `main`),
/// in one pass over the label.
fn classify(label: &str) -> (bool, bool) {
    static NAMES: OnceLock<AhoCorasick> = OnceLock::new();
    let tag = label_tag(label);
    let chrome_tag = matches!(tag, "nav" | "aside" | "footer");
    let rest = &label[tag.len()..];
    // The classes of <html> and <body> describe the page ("no-sidebars",
    // "menu-open"), not an element that is chrome.
    if rest.is_empty() || matches!(tag, "html" | "body") {
        return (chrome_tag, false);
    }
    let names = NAMES.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            // The longest name wins where two overlap, so a word that only
            // contains a chrome name ("celwidget") is read as itself.
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(
                CHROME_NAMES
                    .iter()
                    .chain(CONTENT_NAMES)
                    .chain(NEUTRAL_NAMES),
            )
            .expect("fixed patterns build")
    });
    let (mut chrome_named, mut content) = (false, false);
    for name in rest
        .split(['.', '#'])
        .filter(|n| !n.is_empty() && !states_what_it_has(n))
    {
        for m in names.find_iter(name) {
            let k = m.pattern().as_usize();
            if k < CHROME_NAMES.len() {
                chrome_named = true;
            } else if k < CHROME_NAMES.len() + CONTENT_NAMES.len() {
                content = true;
            }
        }
    }
    (chrome_tag || (!content && chrome_named), content)
}

pub fn build(blocks: &[Block], feats: &[Feat]) -> Tree {
    let mut nodes: Vec<Node> = Vec::new();
    // Each element's own marks and its parent, to inherit marks once the
    // elements' spans are known (see the `<h1>` rule below).
    let mut own: Vec<Marks> = Vec::new();
    let mut parent: Vec<Option<usize>> = Vec::new();
    let mut chain_nodes: Vec<usize> = Vec::with_capacity(blocks.len() * 16);
    let mut chain_ends = Vec::with_capacity(blocks.len());
    let mut prefix_ids = Vec::new();
    // The previous block's ancestor ids: an element spans consecutive
    // blocks, so the ids a block shares with the previous one (a prefix) are
    // the same elements, and any other id is an element not seen before.
    let mut last_ids: Vec<u32> = Vec::new();
    let mut new_labels: Vec<&str> = Vec::new();
    for (bi, b) in blocks.iter().enumerate() {
        let depth = b.path.bytes().filter(|&c| c == b'/').count() + 1;
        // Blocks from older messages have no ids: a path prefix stands in.
        let ids: &[u32] = if b.ancestors.len() == depth {
            &b.ancestors
        } else {
            prefix_ids.clear();
            let mut end = 0;
            for label in b.path.split('/') {
                end += label.len();
                let id = gleaner_core::util::fnv1a64(&b.path.as_bytes()[..end]);
                prefix_ids.push(id as u32 ^ (id >> 32) as u32);
                end += 1;
            }
            &prefix_ids
        };
        let shared = ids
            .iter()
            .zip(&last_ids)
            .take_while(|(a, b)| a == b)
            .count();
        let prev_start = chain_ends.last().map_or(0, |&e| e - last_ids.len());
        let start = chain_nodes.len();
        chain_nodes.extend_from_within(prev_start..prev_start + shared);
        let mut above = chain_nodes.last().copied().filter(|_| shared > 0);
        // Only the labels after the shared ones are new: taken from the end.
        new_labels.clear();
        new_labels.extend(b.path.rsplit('/').take(depth - shared));
        for &label in new_labels.iter().rev() {
            let tag = label_tag(label);
            let (chrome, content_named) = classify(label);
            own.push(Marks {
                chrome,
                content_named,
                article: matches!(tag, "article" | "main"),
                layout: matches!(tag, "nav" | "header" | "footer" | "aside"),
                chrome_tag: matches!(tag, "nav" | "footer" | "aside"),
                form: tag == "form",
            });
            let above_key = above.map_or(0, |a| nodes[a].path_key);
            parent.push(above);
            above = Some(nodes.len());
            nodes.push(Node {
                first: bi,
                last: bi,
                words: 0.0,
                prose: 0.0,
                chrome,
                path_key: gleaner_core::util::fnv1a64_parts(&[
                    &above_key.to_le_bytes(),
                    label.as_bytes(),
                ]),
            });
            chain_nodes.push(nodes.len() - 1);
        }
        let (words, prose) = (
            feats[bi].words,
            feats[bi].words * (1.0 - feats[bi].link_density),
        );
        for &idx in &chain_nodes[start..] {
            let n = &mut nodes[idx];
            n.last = bi;
            n.words += words;
            n.prose += prose;
        }
        chain_ends.push(chain_nodes.len());
        last_ids.clear();
        last_ids.extend_from_slice(ids);
    }
    // A `<nav>`, `<aside>` or `<footer>` around the page's `<h1>` is markup
    // left unclosed (an `<aside>` banner with no end tag holds the whole
    // page), not chrome.
    let h1 = blocks.iter().position(|b| b.tag == "h1");
    let mut marks: Vec<Marks> = Vec::with_capacity(nodes.len());
    for (n, (mut m, up)) in own.into_iter().zip(parent).enumerate() {
        if m.chrome_tag && h1.is_some_and(|h| (nodes[n].first..=nodes[n].last).contains(&h)) {
            m.chrome_tag = false;
            m.layout = false;
            m.chrome = false;
            nodes[n].chrome = false;
        }
        marks.push(match up {
            Some(p) => m.under(marks[p]),
            None => m,
        });
    }
    Tree {
        nodes,
        chain_nodes,
        chain_ends,
        marks,
    }
}

impl Tree {
    /// A block's elements from the root down.
    pub fn chain(&self, block: usize) -> &[usize] {
        let start = block.checked_sub(1).map_or(0, |p| self.chain_ends[p]);
        &self.chain_nodes[start..self.chain_ends[block]]
    }

    /// The path keys of a block's element, its parent and its grandparent
    /// (an element with none above stands in for its own parent).
    pub fn path_keys(&self, block: usize) -> [u64; 3] {
        let c = self.chain(block);
        let at = |up: usize| {
            let j = c.len().checked_sub(1 + up.min(c.len().saturating_sub(1)));
            j.map_or(0, |j| self.nodes[c[j]].path_key)
        };
        [at(0), at(1), at(2)]
    }

    /// The marks of a block's innermost element (which include its ancestors').
    pub fn marks_of(&self, block: usize) -> Marks {
        self.chain(block)
            .last()
            .map(|&n| self.marks[n])
            .unwrap_or_default()
    }

    /// The deepest element holding every block of `first..=last`.
    pub fn common_ancestor(&self, first: usize, last: usize) -> Option<usize> {
        if first.max(last) >= self.chain_ends.len() {
            return None;
        }
        let (a, b) = (self.chain(first), self.chain(last));
        a.iter()
            .zip(b)
            .take_while(|(x, y)| x == y)
            .last()
            .map(|(x, _)| *x)
    }

    /// Whether a block sits in chrome below `container` (chrome above the
    /// container does not count: the container was chosen for its text).
    pub fn in_chrome_below(&self, block: usize, container: usize) -> bool {
        let c = self.chain(block);
        match c.iter().position(|&n| n == container) {
            Some(pos) => c[pos + 1..].iter().any(|&n| self.nodes[n].chrome),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::classify;

    fn is_chrome(label: &str) -> bool {
        classify(label).0
    }

    #[test]
    fn chrome_labels() {
        assert!(is_chrome("nav"));
        assert!(is_chrome("div#sidebar.widget"));
        assert!(is_chrome("ul.social-share"));
        assert!(!is_chrome("div.article-body"));
        assert!(!is_chrome("div.post-share-content"));
        assert!(!is_chrome("p"));
        // Page-level classes and stated ones are not what the element is.
        assert!(!is_chrome("body.page-node.no-sidebars"));
        assert!(!is_chrome("div.row.has-side-banner"));
        assert!(is_chrome("div.row.side-banner"));
        assert!(is_chrome("div#no-js.sidebar"), "one stated name, one real");
        // Words that only contain a chrome name.
        assert!(!is_chrome("div.celwidget.c-f"));
        assert!(!is_chrome("span.price-unavailable"));
        assert!(is_chrome("div.widget.c-f"));
        assert!(is_chrome("ul.topnav"));
    }
}
