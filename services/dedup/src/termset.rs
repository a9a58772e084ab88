//! Every term of an article, kept as a Bloom filter of about a byte per
//! term (three probes, about 3% false positives), so that the window can
//! ask whether a new article's heaviest terms occur anywhere in a stored
//! one, not only among the stored one's own heaviest terms, which change
//! with IDF as the stream goes on.
//!
//! Written here: a few lines over a hash the caller already has; Bloom
//! crates hash their items again and add per-filter headers.

/// Most 32-bit words per filter: past 8 Kibit (1 KiB) a long article's
/// filter fills up a little instead of growing.
const MAX_WORDS: usize = 256;

/// Words a filter of `n` terms takes (about a byte a term).
pub fn words_for(n: usize) -> usize {
    (n * 8).div_ceil(32).clamp(1, MAX_WORDS)
}

/// Appends a filter of `terms` (hashed ids) to `out`.
pub fn write(terms: impl ExactSizeIterator<Item = u32>, out: &mut Vec<u32>) {
    let words = words_for(terms.len());
    let start = out.len();
    out.resize(start + words, 0);
    let bits = &mut out[start..];
    let n = (words * 32) as u64;
    for t in terms {
        for p in probes(t, n) {
            bits[(p / 32) as usize] |= 1 << (p % 32);
        }
    }
}

/// True if `term` may be in the filter `bits`; false if it is not.
pub fn contains(bits: &[u32], term: u32) -> bool {
    !bits.is_empty()
        && probes(term, (bits.len() * 32) as u64)
            .iter()
            .all(|&p| bits[(p / 32) as usize] & (1 << (p % 32)) != 0)
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

    fn filter(terms: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        write(terms.iter().copied(), &mut out);
        out
    }

    #[test]
    fn holds_its_terms_and_few_others() {
        let terms = ids(0..300);
        let set = filter(&terms);
        assert!(terms.iter().all(|&t| contains(&set, t)));
        let false_hits = ids(1000..11_000)
            .iter()
            .filter(|&&t| contains(&set, t))
            .count();
        assert!(false_hits < 600, "{false_hits} of 10000");
        assert_eq!(set.len() * 4, 300, "about a byte a term");
    }

    #[test]
    fn small_and_huge_sets_stay_bounded() {
        let empty = filter(&[]);
        assert_eq!(empty.len(), 1);
        assert!(!contains(&empty, 12345));
        assert!(!contains(&[], 12345));
        assert_eq!(filter(&ids(0..100_000)).len(), MAX_WORDS);
    }
}
