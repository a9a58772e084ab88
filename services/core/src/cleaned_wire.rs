//! `Cleaned` as JSON: each element's label is written once, in the page's
//! `elements` (by its number in `Block::ancestors`), and a block's `path`
//! only where those do not give it. The paths were most of a cleaned
//! record (105 of 181 kB per page over 300 wcxb-dev pages: deep pages with
//! long class names repeat them in every block), and every byte of a record
//! is stored, read and copied by the broker and parsed by extract.
//!
//! A path is rebuilt as its elements' labels joined by `/`, so a block
//! whose path does not split into one label per ancestor (a class name
//! with a `/` in it, as Tailwind's `w-1/2`) keeps its path written out.

use crate::messages::{is_zero_u32, Block, Cleaned, PageMeta};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// What is written: the blocks borrowed, their paths left out where the
/// elements give them.
#[derive(Serialize)]
struct CleanedOut<'a> {
    id: &'a str,
    url: &'a str,
    final_url: &'a str,
    fetched_at: &'a str,
    title: &'a str,
    meta: &'a PageMeta,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    elements: BTreeMap<u32, &'a str>,
    blocks: Vec<BlockOut<'a>>,
}

/// A block with its path left out (`None`) when the elements give it.
struct BlockOut<'a> {
    block: &'a Block,
    path: Option<&'a str>,
}

impl Serialize for BlockOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.path {
            Some(_) => self.block.serialize(s),
            None => Pathless::of(self.block).serialize(s),
        }
    }
}

/// A block's fields but its path, borrowed (Block's own JSON less `path`,
/// with the same attributes).
#[derive(Serialize)]
struct Pathless<'a> {
    text: &'a str,
    ancestors: &'a [u32],
    tag: &'a str,
    text_len: u32,
    #[serde(skip_serializing_if = "is_zero_u32")]
    link_text_len: u32,
    #[serde(skip_serializing_if = "is_zero_u32")]
    link_count: u32,
    #[serde(skip_serializing_if = "is_zero_u32")]
    image_count: u32,
    #[serde(skip_serializing_if = "is_zero_u32")]
    markup_bytes: u32,
    #[serde(skip_serializing_if = "is_zero_u32")]
    hidden_len: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    chrome_role: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    line_break: bool,
}

impl<'a> Pathless<'a> {
    fn of(b: &'a Block) -> Self {
        // Every field named: a field added to Block fails to compile here
        // instead of being left off the wire.
        let Block {
            text,
            path: _,
            ancestors,
            tag,
            text_len,
            link_text_len,
            link_count,
            image_count,
            markup_bytes,
            hidden_len,
            chrome_role,
            line_break,
        } = b;
        Pathless {
            text,
            ancestors,
            tag,
            text_len: *text_len,
            link_text_len: *link_text_len,
            link_count: *link_count,
            image_count: *image_count,
            markup_bytes: *markup_bytes,
            hidden_len: *hidden_len,
            chrome_role: *chrome_role,
            line_break: *line_break,
        }
    }
}

/// Element numbers up to this are looked up in a table indexed by number
/// (clean numbers a page's elements from 1); a block naming a larger one
/// keeps its path written out, so a hostile record cannot make the table
/// huge.
const MAX_ELEMENT: u32 = 1 << 20;

impl Serialize for Cleaned {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // By element number: every block checks each of its ancestors here
        // (tens of thousands of look-ups on a deep page, which a BTreeMap
        // made 2% of the clean service's CPU in perf).
        let mut labels: Vec<Option<&str>> = Vec::new();
        let blocks = self
            .blocks
            .iter()
            .map(|b| {
                let fits = !b.path.is_empty()
                    && b.path.split('/').count() == b.ancestors.len()
                    && b.ancestors.iter().all(|&id| id <= MAX_ELEMENT)
                    && b.ancestors
                        .iter()
                        .zip(b.path.split('/'))
                        .all(|(&id, label)| {
                            labels
                                .get(id as usize)
                                .copied()
                                .flatten()
                                .is_none_or(|known| known == label)
                        });
                if fits {
                    for (&id, label) in b.ancestors.iter().zip(b.path.split('/')) {
                        let id = id as usize;
                        if labels.len() <= id {
                            labels.resize(id + 1, None);
                        }
                        labels[id] = Some(label);
                    }
                }
                BlockOut {
                    block: b,
                    path: (!fits).then_some(b.path.as_str()),
                }
            })
            .collect();
        let elements: BTreeMap<u32, &str> = labels
            .iter()
            .enumerate()
            .filter_map(|(id, l)| l.map(|l| (id as u32, l)))
            .collect();
        CleanedOut {
            id: &self.id,
            url: &self.url,
            final_url: &self.final_url,
            fetched_at: &self.fetched_at,
            title: &self.title,
            meta: &self.meta,
            elements,
            blocks,
        }
        .serialize(s)
    }
}

/// `gleaner.cleaned`: a page stripped of markup (as read, and as the
/// topic's schema describes it).
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "Cleaned")]
pub(crate) struct CleanedWire {
    id: String,
    url: String,
    final_url: String,
    fetched_at: String,
    title: String,
    meta: PageMeta,
    /// The label of each element (tag, `#id`, up to three `.class`es) by
    /// its number in the blocks' `ancestors`: a block without a `path` has
    /// its elements' labels joined by `/` as its path.
    #[serde(default)]
    elements: BTreeMap<u32, String>,
    blocks: Vec<Block>,
}

impl<'de> Deserialize<'de> for Cleaned {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = CleanedWire::deserialize(d)?;
        // By element number, as they were written (see MAX_ELEMENT): one
        // look-up per ancestor of every block. Only when the numbers are
        // dense, as clean writes them: a record from elsewhere naming
        // element 1,000,000 alone does not get a table that long.
        let dense = w
            .elements
            .last_key_value()
            .is_some_and(|(&last, _)| last as usize <= 4 * w.elements.len() + 1024);
        let mut labels: Vec<&str> = Vec::new();
        for (&id, label) in w.elements.range(..=MAX_ELEMENT).filter(|_| dense) {
            let id = id as usize;
            if labels.len() <= id {
                labels.resize(id + 1, "");
            }
            labels[id] = label;
        }
        let label = |id: u32| match labels.get(id as usize) {
            Some(l) => *l,
            None => w.elements.get(&id).map_or("", String::as_str),
        };
        let mut blocks = w.blocks;
        for b in blocks.iter_mut().filter(|b| b.path.is_empty()) {
            let mut path = String::with_capacity(b.ancestors.len() * 16);
            for (i, &id) in b.ancestors.iter().enumerate() {
                if i > 0 {
                    path.push('/');
                }
                path.push_str(label(id));
            }
            b.path = path;
        }
        Ok(Cleaned {
            id: w.id,
            url: w.url,
            final_url: w.final_url,
            fetched_at: w.fetched_at,
            title: w.title,
            meta: w.meta,
            blocks,
        })
    }
}

impl JsonSchema for Cleaned {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Cleaned".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        CleanedWire::json_schema(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str, path: &str, ancestors: &[u32]) -> Block {
        Block {
            text: text.into(),
            path: path.into(),
            ancestors: ancestors.to_vec(),
            tag: path.rsplit('/').next().unwrap_or("").into(),
            text_len: text.chars().count() as u32,
            link_count: u32::from(text.contains("link")),
            ..Block::default()
        }
    }

    #[test]
    fn paths_are_written_once_per_element_and_read_back_whole() {
        let cleaned = Cleaned {
            id: "1".into(),
            url: "http://x.test/a".into(),
            final_url: "http://x.test/a".into(),
            fetched_at: String::new(),
            title: "T".into(),
            meta: PageMeta::default(),
            blocks: vec![
                block("one", "html/body/div#main.story.wide/p", &[1, 2, 5, 9]),
                block(
                    "two link",
                    "html/body/div#main.story.wide/p",
                    &[1, 2, 5, 11],
                ),
                // A class with a slash: its path stays written out.
                block("three", "html/body/div.w-1/2/p", &[1, 2, 14, 15]),
                // Made by hand, with no ancestors: written out too.
                block("four", "html/body/p", &[]),
                // An element number past the table's bound: written out,
                // nothing allocated for it.
                block("five", "html/body/p", &[1, 2, u32::MAX]),
            ],
        };
        let json = serde_json::to_string(&cleaned).unwrap();
        assert_eq!(json.matches("div#main.story.wide").count(), 1, "{json}");
        assert!(json.contains(r#""path":"html/body/div.w-1/2/p""#), "{json}");
        assert_eq!(json.matches(r#""path":"html/body/p""#).count(), 2, "{json}");
        assert!(
            json.contains(r#""elements":{"1":"html","2":"body","5":"#),
            "in order: {json}"
        );
        assert!(
            !json.contains("image_count"),
            "zero counts are left out: {json}"
        );
        let back: Cleaned = serde_json::from_str(&json).unwrap();
        assert_eq!(back, cleaned);
        // Element numbers far apart (not as clean writes them) still read.
        let sparse = serde_json::json!({
            "id": "1", "url": "u", "final_url": "u", "fetched_at": "", "title": "T", "meta": {},
            "elements": {"1": "html", "900000": "body", "4294967295": "p"},
            "blocks": [{"text": "x", "ancestors": [1, 900000, u32::MAX], "tag": "p", "text_len": 1}]
        });
        let read: Cleaned = serde_json::from_value(sparse).unwrap();
        assert_eq!(read.blocks[0].path, "html/body/p");
        // A record written before the elements table (every path written
        // out, every count present) still reads.
        let old = serde_json::json!({
            "id": "1", "url": "u", "final_url": "u", "fetched_at": "", "title": "T", "meta": {},
            "blocks": [{"text": "one", "path": "html/body/p", "ancestors": [1, 2, 3], "tag": "p",
                "text_len": 3, "link_text_len": 0, "link_count": 0, "image_count": 0, "markup_bytes": 7}]
        });
        let read: Cleaned = serde_json::from_value(old).unwrap();
        assert_eq!(read.blocks[0].path, "html/body/p");
        assert_eq!(read.blocks[0].markup_bytes, 7);
    }
}
