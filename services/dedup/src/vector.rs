//! An article's TF-IDF vector cut to its heaviest terms: hashed term ids
//! and f32 weights, ascending by term, scaled to unit length once, so that
//! a term's squared weight is its share of the article's weight.

use crate::stored::Stored;
use gleaner_text::docfreq::DocFreq;

/// Sorted `(term, weight)` pairs of unit length.
pub type Vector = Box<[(u32, f32)]>;

/// The `k` heaviest terms of `terms` (hashed ids with counts) by
/// `(1 + ln tf) * idf²`, ties to the smaller id. IDF squared: what makes
/// two texts one article is their rare words (names, places, figures)
/// being shared; with plain IDF a page template's many middling words
/// outweighed the few names that tell two product pages apart.
pub fn top_terms(terms: &[(u32, u16)], df: &DocFreq, k: usize) -> Vector {
    let mut w: Vec<(u32, f32)> = terms
        .iter()
        .map(|&(t, c)| {
            let idf = df.idf(t);
            (t, (1.0 + f32::from(c).ln()) * idf * idf)
        })
        .collect();
    let heavier = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if w.len() > k && k > 0 {
        w.select_nth_unstable_by(k - 1, heavier);
    }
    w.truncate(k);
    w.sort_unstable_by_key(|t| t.0);
    let norm = w.iter().map(|t| t.1 * t.1).sum::<f32>().sqrt();
    if norm > 0.0 {
        for t in &mut w {
            t.1 /= norm;
        }
    }
    w.into_boxed_slice()
}

/// How much of an article's TF-IDF weight lies on terms another has too,
/// the larger of the two ways round: the stored article's vector against
/// every term of the new one, and the new vector against the stored
/// article's term set. A text cut to part of another keeps its rare words
/// in the other (near 1), where cosine falls with the cut; two pages that
/// share a template but not their rare words (names, models) stay low.
pub fn shared_weight(new: &[(u32, f32)], new_terms: &[(u32, u16)], stored: &Stored) -> f32 {
    let in_new: f32 = stored
        .vector()
        .filter(|(t, _)| new_terms.binary_search_by_key(t, |x| x.0).is_ok())
        .map(|(_, w)| w * w)
        .sum();
    let in_stored: f32 = new
        .iter()
        .filter(|(t, _)| stored.has_term(*t))
        .map(|(_, w)| w * w)
        .sum();
    in_new.max(in_stored).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_heaviest_terms_at_unit_length() {
        let mut df = DocFreq::for_window(1000);
        // Term 1 is in every document, so it weighs least.
        for i in 0..100 {
            df.add([1u32, 1000 + i].into_iter());
        }
        let v = top_terms(&[(1, 5), (2, 1), (3, 2)], &df, 2);
        assert_eq!(v.iter().map(|t| t.0).collect::<Vec<_>>(), vec![2, 3]);
        assert!((v.iter().map(|t| t.1 * t.1).sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(v[1].1 > v[0].1, "the more frequent rare term weighs more");
    }

    #[test]
    fn shared_weight_looks_both_ways_and_at_every_term() {
        let df = DocFreq::for_window(1000);
        let whole: Vec<(u32, u16)> = (1..=40).map(|t| (t, 1)).collect();
        let part: Vec<(u32, u16)> = (1..=10).map(|t| (t, 1)).collect();
        let other: Vec<(u32, u16)> = (5..=14).map(|t| (t, 1)).collect();
        let (vw, vp, vo) = (
            top_terms(&whole, &df, 8),
            top_terms(&part, &df, 8),
            top_terms(&other, &df, 8),
        );
        let stored = |v: &[(u32, f32)], terms: &[(u32, u16)]| Stored::new(&[], v, terms);
        // The part's heaviest terms are all in the whole, though the whole
        // kept other terms in its own vector.
        assert!((shared_weight(&vp, &part, &stored(&vw, &whole)) - 1.0).abs() < 1e-3);
        assert!((shared_weight(&vw, &whole, &stored(&vp, &part)) - 1.0).abs() < 1e-3);
        // Half of each one's terms in the other.
        let half = shared_weight(&vo, &other, &stored(&vp, &part));
        assert!((0.4..0.9).contains(&half), "{half}");
        assert_eq!(shared_weight(&[], &[], &stored(&vw, &whole)), 0.0);
    }
}
