//! What extraction learns or is told per site: templates learned from the
//! stream (what repeats across a host's pages is template) and site rules
//! (managed through the `rules` topic), which win over generic signals.

use gleaner_core::messages::{Block, SiteRules};
use gleaner_core::util::fnv1a64;
use std::collections::{HashMap, VecDeque};

/// A block is template once it was seen, same tag path and same text, on
/// this many earlier pages of its host. Two, not one, so that one repost of
/// an article on the same host is not taken for template.
const MIN_PAGES: u32 = 2;
/// Bounds memory: keys per host and hosts remembered.
const MAX_KEYS_PER_HOST: usize = 50_000;
const MAX_HOSTS: usize = 10_000;

#[derive(Default)]
struct SiteTemplate {
    pages: u32,
    seen: rustc_hash::FxHashMap<u64, u32>,
    /// Pages learned from, by URL hash: a page fetched again (a recrawl)
    /// is not learned twice, or it would become its own template.
    learned: rustc_hash::FxHashMap<u64, ()>,
}

/// Per-host templates, learned as pages stream by.
#[derive(Default)]
pub struct Templates {
    hosts: HashMap<String, SiteTemplate>,
    order: VecDeque<String>,
}

/// The key of a page's `<title>` among its blocks' keys (none for a page
/// without one): a NUL, which no tag path holds, where a block's path is.
fn title_key(title: &str) -> Option<u64> {
    use std::hash::Hasher;
    (!title.is_empty()).then(|| {
        let mut h = rustc_hash::FxHasher::default();
        h.write(b"\0\n");
        h.write(title.as_bytes());
        h.finish()
    })
}

fn key(b: &Block) -> u64 {
    // The path without element ids: the same place on every page. Keys
    // live in memory only, so a fast hash will do (FNV, a byte at a time,
    // was a tenth of extraction's CPU in a crawl).
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(b.path.as_bytes());
    h.write(b"\n");
    h.write(b.text.as_bytes());
    h.finish()
}

impl Templates {
    /// Which blocks of this page are template, judged on the other pages
    /// seen before it; then learns from this page, once per URL.
    pub fn observe(&mut self, host: &str, url: &str, blocks: &[Block]) -> Vec<bool> {
        self.observe_titled(host, url, "", blocks).0
    }

    /// [`Templates::observe`], and whether the page's `<title>` is the
    /// site's too: the same on [`MIN_PAGES`] earlier pages of the host (a
    /// single-page app's "Reddit - The heart of the internet" on every
    /// post), so that it names no article.
    pub fn observe_titled(
        &mut self,
        host: &str,
        url: &str,
        title: &str,
        blocks: &[Block],
    ) -> (Vec<bool>, bool) {
        let title = title_key(title.trim());
        let mut template = self.observe_keys(host, url, blocks, title);
        // The title's verdict is the last, when it has one.
        let title_repeats = title.is_some() && template.pop() == Some(true);
        (template, title_repeats)
    }

    fn observe_keys(
        &mut self,
        host: &str,
        url: &str,
        blocks: &[Block],
        title: Option<u64>,
    ) -> Vec<bool> {
        if !self.hosts.contains_key(host) {
            if self.order.len() >= MAX_HOSTS {
                if let Some(old) = self.order.pop_front() {
                    self.hosts.remove(&old);
                }
            }
            self.order.push_back(host.to_string());
        }
        let site = self.hosts.entry(host.to_string()).or_default();
        let keys: Vec<u64> = blocks.iter().map(key).chain(title).collect();
        let again = site.learned.contains_key(&fnv1a64(url.as_bytes()));
        // A page seen before counts once towards its own blocks.
        let need = MIN_PAGES + u32::from(again);
        let template = keys
            .iter()
            .map(|k| site.seen.get(k).is_some_and(|&n| n >= need))
            .collect();
        if again {
            return template;
        }
        if site.learned.len() >= MAX_KEYS_PER_HOST {
            site.learned.clear();
        }
        site.learned.insert(fnv1a64(url.as_bytes()), ());
        if site.seen.len() > MAX_KEYS_PER_HOST {
            // Keep what is clearly template, forget the one-offs.
            site.seen.retain(|_, n| *n >= MIN_PAGES);
        }
        let mut unique = keys;
        unique.sort_unstable();
        unique.dedup();
        for k in unique {
            *site.seen.entry(k).or_insert(0) += 1;
        }
        site.pages += 1;
        template
    }

    /// Pages seen for a host.
    pub fn pages(&self, host: &str) -> u32 {
        self.hosts.get(host).map_or(0, |s| s.pages)
    }
}

/// Whether a path label (`div#main.story.wide`) matches a simple selector:
/// `tag`, `#id`, `.class`, or a combination such as `div.story`.
pub fn label_matches(label: &str, selector: &str) -> bool {
    let parse = |s: &str| {
        let mut tag = String::new();
        let mut ids = Vec::new();
        let mut classes = Vec::new();
        let mut cur = String::new();
        let mut kind = 't';
        for c in s.chars().chain(std::iter::once('\0')) {
            if matches!(c, '#' | '.' | '\0') {
                match kind {
                    't' => tag = std::mem::take(&mut cur),
                    '#' => ids.push(std::mem::take(&mut cur)),
                    _ => classes.push(std::mem::take(&mut cur)),
                }
                kind = c;
            } else {
                cur.push(c);
            }
        }
        (tag, ids, classes)
    };
    let (lt, lids, lclasses) = parse(label);
    let (st, sids, sclasses) = parse(selector.trim());
    (st.is_empty() || st.eq_ignore_ascii_case(&lt))
        && sids.iter().all(|i| lids.contains(i))
        && sclasses.iter().all(|c| lclasses.contains(c))
        && !(st.is_empty() && sids.is_empty() && sclasses.is_empty())
}

fn path_matches(path: &str, selector: &str) -> bool {
    path.split('/').any(|l| label_matches(l, selector))
}

/// Applies a site's rules to a selection: with include selectors, the
/// content is exactly the blocks under them; excludes always remove.
pub fn apply_rules(rules: &SiteRules, blocks: &[Block], chosen: Vec<usize>) -> Vec<usize> {
    let base: Vec<usize> = if rules.include_paths.is_empty() {
        chosen
    } else {
        (0..blocks.len())
            .filter(|&i| {
                rules
                    .include_paths
                    .iter()
                    .any(|s| path_matches(&blocks[i].path, s))
            })
            .collect()
    };
    base.into_iter()
        .filter(|&i| {
            !rules
                .exclude_paths
                .iter()
                .any(|s| path_matches(&blocks[i].path, s))
        })
        .filter(|&i| {
            !rules
                .exclude_text
                .iter()
                .any(|t| !t.is_empty() && blocks[i].text.contains(t.as_str()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_match_labels() {
        assert!(label_matches("div#main.story.wide", "div.story"));
        assert!(label_matches("div#main.story.wide", "#main"));
        assert!(label_matches("article", "article"));
        assert!(!label_matches("div.story", "div.other"));
        assert!(!label_matches("section.story", "div.story"));
        assert!(!label_matches("div", ""));
    }

    fn block(path: &str, text: &str) -> Block {
        Block {
            path: path.into(),
            text: text.into(),
            ..Block::default()
        }
    }

    #[test]
    fn template_is_what_repeats_on_earlier_pages() {
        let mut t = Templates::default();
        let page = |body: &str| {
            vec![
                block("html/body/div.legal", "Legal notice"),
                block("html/body/p", body),
            ]
        };
        assert_eq!(t.observe("x.test", "/1", &page("one")), vec![false, false]);
        assert_eq!(t.observe("x.test", "/2", &page("two")), vec![false, false]);
        assert_eq!(t.observe("x.test", "/3", &page("three")), vec![true, false]);
        assert_eq!(
            t.observe("y.test", "/4", &page("four")),
            vec![false, false],
            "per host"
        );
        // Fetched again and again, a page does not become its own template.
        for _ in 0..3 {
            assert_eq!(t.observe("x.test", "/3", &page("three")), vec![true, false]);
        }
        assert_eq!(t.pages("x.test"), 3);
    }

    #[test]
    fn a_title_every_page_of_a_host_has_is_the_sites() {
        let mut t = Templates::default();
        let page = |body: &str| vec![block("html/body/p", body)];
        let mut seen =
            |url: &str, title: &str| t.observe_titled("x.test", url, title, &page(url)).1;
        assert!(!seen("/1", "Quay - Home of the harbour"));
        assert!(!seen("/2", "Quay - Home of the harbour"));
        assert!(seen("/3", "Quay - Home of the harbour"));
        // Each page's own title is its own, and no title is no site's.
        assert!(!seen("/4", "Bridge reopens - Quay"));
        assert!(!seen("/5", ""));
        assert!(!seen("/6", ""));
        assert!(!seen("/7", ""));
    }

    #[test]
    fn rules_include_and_exclude() {
        let blocks = vec![
            block("html/body/nav", "Home"),
            block("html/body/div.story/p", "Body one"),
            block("html/body/div.story/div.ad", "Buy now"),
            block("html/body/div.story/p", "Body two. Advertisement"),
        ];
        let rules = SiteRules {
            host: "x.test".into(),
            include_paths: vec!["div.story".into()],
            exclude_paths: vec![".ad".into()],
            exclude_text: vec!["Advertisement".into()],
        };
        assert_eq!(apply_rules(&rules, &blocks, vec![0]), vec![1]);
    }
}
