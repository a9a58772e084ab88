//! Containment of one text in another, estimated from their bottom-k
//! sketches (the k smallest shingle hashes of each).
//!
//! Below the smaller of the two sketches' largest values both sketches hold
//! every shingle of their text, so there the two samples are exact and
//! alike: the shared share of the smaller sample estimates how much of the
//! shorter text is in the longer one, and is unbiased whatever their
//! lengths (Broder's resemblance and containment, bottom-k form).

/// How much the estimate rests on: fewer sampled shingles than this on the
/// shorter side (one text an eighth of the other's length or less, or a
/// text of a few words) gives no containment, since a few shared values
/// prove nothing.
pub const MIN_SAMPLE: usize = 8;

/// The estimated share of the shorter text's shingles found in the other
/// (0 to 1), from sorted sketches.
pub fn containment(a: &[u32], b: &[u32]) -> f32 {
    let (Some(&amax), Some(&bmax)) = (a.last(), b.last()) else {
        return 0.0;
    };
    let t = amax.min(bmax);
    let least = MIN_SAMPLE.min(a.len()).min(b.len());
    let a = &a[..a.partition_point(|&x| x <= t)];
    let b = &b[..b.partition_point(|&x| x <= t)];
    let smaller = a.len().min(b.len());
    if smaller == 0 || smaller < least {
        return 0.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        both += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    both as f32 / smaller as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bottom-k sketch of a set of values.
    fn sketch(values: impl Iterator<Item = u32>, k: usize) -> Vec<u32> {
        let mut v: Vec<u32> = values.collect();
        v.sort_unstable();
        v.dedup();
        v.truncate(k);
        v
    }

    /// Pseudo-random well-spread values, as shingle hashes are.
    fn hashes(range: std::ops::Range<u32>) -> impl Iterator<Item = u32> {
        range.map(|i| i.wrapping_mul(2_654_435_761).rotate_left(7))
    }

    #[test]
    fn identical_disjoint_and_contained_texts() {
        let a = sketch(hashes(0..1000), 64);
        assert_eq!(containment(&a, &a), 1.0);
        let b = sketch(hashes(1000..2000), 64);
        assert_eq!(containment(&a, &b), 0.0);
        // The first 60% of a text is wholly inside it, either way round.
        let part = sketch(hashes(0..600), 64);
        assert_eq!(containment(&part, &a), 1.0);
        assert_eq!(containment(&a, &part), 1.0);
    }

    #[test]
    fn half_shared_texts_are_about_half_contained() {
        let a = sketch(hashes(0..2000), 64);
        let b = sketch(hashes(1000..3000), 64);
        let c = containment(&a, &b);
        assert!((0.3..0.7).contains(&c), "{c}");
    }

    #[test]
    fn a_much_shorter_text_or_an_empty_one_proves_nothing() {
        let long = sketch(hashes(0..10_000), 64);
        let short = sketch(hashes(0..200), 64);
        // About 64 * 200 / 10000 = 1.3 of the short text's values fall in
        // the long sketch's range: too few to judge.
        assert_eq!(containment(&short, &long), 0.0);
        assert_eq!(containment(&[], &long), 0.0);
        // A text of a few shingles is judged on all it has.
        let tiny = sketch(hashes(0..3), 64);
        assert_eq!(containment(&tiny, &tiny), 1.0);
    }
}
