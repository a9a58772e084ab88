//! The replay guard: after a crash, a stage's inputs since its last
//! committed offset come again, and a stage whose outputs depend only on
//! its input produces the same records again. The guard remembers a digest
//! of every record the stage produced recently (read back from the tail of
//! its output topics when it gets partitions, so it also covers what another
//! instance produced before a rebalance) and drops a record already there.

use gleaner_core::recent::Recent;
use gleaner_core::stage::Output;

pub struct ReplayGuard {
    seen: Recent<()>,
}

/// A record's digest: XXH3 over its topic, key and value. Every record a
/// stage produces is digested, and a page or a cleaned page is tens of
/// kilobytes: FNV-1a, a byte at a time, was 4% of the clean service's CPU
/// in perf; XXH3 reads them at memory speed.
fn digest(topic: &str, key: &[u8], value: &[u8]) -> u64 {
    use xxhash_rust::xxh3::Xxh3;
    let mut h = Xxh3::new();
    h.update(topic.as_bytes());
    h.update(&[0]);
    // The key's length keeps ("ab", "c") and ("a", "bc") apart.
    h.update(&(key.len() as u64).to_le_bytes());
    h.update(key);
    h.update(value);
    h.digest()
}

impl ReplayGuard {
    pub fn new(capacity: usize) -> Self {
        ReplayGuard {
            seen: Recent::new(capacity),
        }
    }

    fn remember(&mut self, d: u64) -> bool {
        self.seen.insert(d, ())
    }

    /// Remembers a record already on `topic` (its broker name).
    pub fn known(&mut self, topic: &str, key: Option<&str>, value: &[u8]) {
        self.remember(digest(topic, key.unwrap_or("").as_bytes(), value));
    }

    /// The outputs not produced before; `name` gives an output's topic's
    /// broker name. Dead letters always pass: they say what went wrong now.
    pub fn fresh(
        &mut self,
        outs: Vec<Output>,
        name: impl Fn(&Output) -> String,
    ) -> (Vec<Output>, usize) {
        let before = outs.len();
        let kept: Vec<Output> = outs
            .into_iter()
            .filter(|o| {
                o.topic == gleaner_core::Topic::DEAD_LETTER
                    || o.topic == gleaner_core::Topic::SKIPPED
                    || self.remember(digest(&name(o), o.key.as_bytes(), &o.payload.bytes()))
            })
            .collect();
        let dropped = before - kept.len();
        (kept, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::Topic;

    #[test]
    fn drops_a_record_already_produced_and_forgets_the_oldest() {
        let mut g = ReplayGuard::new(2);
        let name = |o: &Output| o.topic.short().to_string();
        g.known("unique", Some("a"), b"\"x\"");
        let outs = vec![
            Output::of(Topic::UNIQUE, "a", &"x"),
            Output::of(Topic::UNIQUE, "a", &"changed"),
            Output::of(Topic::UNIQUE, "b", &"x"),
        ];
        let (kept, dropped) = g.fresh(outs, name);
        assert_eq!(dropped, 1);
        assert_eq!(kept.len(), 2);
        // Capacity 2: "a"/"x" was pushed out by the two new ones.
        let (kept, dropped) = g.fresh(vec![Output::of(Topic::UNIQUE, "a", &"x")], name);
        assert_eq!((kept.len(), dropped), (1, 0));
    }

    #[test]
    fn dead_letters_always_pass() {
        let mut g = ReplayGuard::new(8);
        let dl = || Output::of(Topic::DEAD_LETTER, "k", &"why");
        let (kept, _) = g.fresh(vec![dl(), dl()], |o| o.topic.short().to_string());
        assert_eq!(kept.len(), 2);
    }
}
