//! Every term of an article, kept as a Bloom filter of about a byte per
//! term (three probes, about 3% false positives), so that the window can
//! ask whether a new article's heaviest terms occur anywhere in a stored
//! one, not only among the stored one's own heaviest terms, which change
//! with IDF as the stream goes on.
//!
//! Written here: a few lines over a hash the caller already has; Bloom
//! crates hash their items again and add per-filter headers.

#[derive(Debug, Clone, PartialEq)]
pub struct TermSet {
    bits: Box<[u64]>,
}

/// Most words per filter: past 8 Kibit (1 KiB) a long article's filter
/// fills up a little instead of growing.
const MAX_WORDS: usize = 128;

impl TermSet {
    /// A filter of `terms` (hashed ids).
    pub fn of(terms: impl ExactSizeIterator<Item = u32>) -> TermSet {
        let words = (terms.len() * 8).div_ceil(64).clamp(1, MAX_WORDS);
        let mut bits = vec![0u64; words].into_boxed_slice();
        let n = (words * 64) as u64;
        for t in terms {
            for p in probes(t, n) {
                bits[(p / 64) as usize] |= 1 << (p % 64);
            }
        }
        TermSet { bits }
    }

    /// True if `term` may be in the set; false if it is not.
    pub fn contains(&self, term: u32) -> bool {
        probes(term, (self.bits.len() * 64) as u64)
            .iter()
            .all(|&p| self.bits[(p / 64) as usize] & (1 << (p % 64)) != 0)
    }

    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

/// Three bit positions below `n` by double hashing of the (already
/// hashed) term, each mapped to the range by a multiply and shift.
fn probes(t: u32, n: u64) -> [u64; 3] {
    let h2 = t.wrapping_mul(0x85eb_ca6b).rotate_left(15) | 1;
    let at = |h: u32| (u64::from(h) * n) >> 32;
    [
        at(t),
        at(t.wrapping_add(h2)),
        at(t.wrapping_add(h2.wrapping_mul(2))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(range: std::ops::Range<u32>) -> Vec<u32> {
        range.map(|i| i.wrapping_mul(2_654_435_761)).collect()
    }

    #[test]
    fn holds_its_terms_and_few_others() {
        let terms = ids(0..300);
        let set = TermSet::of(terms.iter().copied());
        assert!(terms.iter().all(|&t| set.contains(t)));
        let false_hits = ids(1000..11_000)
            .iter()
            .filter(|&&t| set.contains(t))
            .count();
        assert!(false_hits < 600, "{false_hits} of 10000");
        assert_eq!(set.bytes(), 304, "about a byte a term");
    }

    #[test]
    fn small_and_huge_sets_stay_bounded() {
        let empty = TermSet::of(std::iter::empty());
        assert_eq!(empty.bytes(), 8);
        assert!(!empty.contains(12345));
        let huge = TermSet::of(ids(0..100_000).into_iter());
        assert_eq!(huge.bytes(), MAX_WORDS * 8);
    }
}
