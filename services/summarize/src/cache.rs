//! Summaries already made by a remote engine, by a key of what was asked
//! (the text, the engine, the model, the prompts' version, the lengths),
//! so that a repost, a replay after a crash or a rerun over the same pages
//! asks the engine nothing. The stage writes each new entry on the
//! `summary-cache` topic (compacted on Kafka, `DATA/summary-cache.jsonl`
//! in `gleaner run`) and reads the topic back whole when it starts.

use crate::SummaryLength;
use gleaner_core::sync::Locked;
use rustc_hash::FxHashMap;
use std::sync::Mutex;

/// One cache record (the summary-cache topic's message).
pub use gleaner_core::messages::SummaryCacheEntry as CacheEntry;

/// The key of a request: two FNV-1a hashes (stable across runs) of what
/// decides the answer.
pub fn key(
    text: &str,
    engine: &str,
    model: &str,
    version: &str,
    lengths: &[SummaryLength],
) -> String {
    let spec: String = lengths
        .iter()
        .map(|l| format!("{}:{:?}:{:?};", l.name, l.sentences, l.words))
        .collect();
    let parts: [&[u8]; 5] = [
        text.as_bytes(),
        engine.as_bytes(),
        model.as_bytes(),
        version.as_bytes(),
        spec.as_bytes(),
    ];
    let a = gleaner_core::util::fnv1a64_parts(&parts);
    let mut salted: Vec<&[u8]> = vec![b"gleaner-summary-cache"];
    salted.extend(parts);
    let b = gleaner_core::util::fnv1a64_parts(&salted);
    format!("{a:016x}{b:016x}")
}

#[derive(Default)]
pub struct SummaryCache {
    entries: Mutex<FxHashMap<String, CacheEntry>>,
}

impl SummaryCache {
    pub fn get(&self, key: &str) -> Option<CacheEntry> {
        self.entries.locked().get(key).cloned()
    }

    pub fn put(&self, e: CacheEntry) {
        self.entries.locked().insert(e.key.clone(), e);
    }

    pub fn len(&self) -> usize {
        self.entries.locked().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_follows_what_decides_the_answer() {
        let l = vec![SummaryLength {
            name: "one".into(),
            sentences: Some(1),
            words: None,
        }];
        let k = key("text", "openai", "m", "1", &l);
        assert_eq!(k, key("text", "openai", "m", "1", &l));
        assert_eq!(k.len(), 32);
        for other in [
            key("text!", "openai", "m", "1", &l),
            key("text", "openai", "m2", "1", &l),
            key("text", "openai", "m", "2", &l),
            key("text", "openai", "m", "1", &[]),
        ] {
            assert_ne!(k, other);
        }
    }
}
