//! A streaming document-frequency table of fixed size: a count-min sketch
//! of two rows of saturating counters with conservative update (a count
//! is raised only where it is the least), all halved (with the document
//! count) each time another window's worth of articles has been counted,
//! so it follows the stream and never grows. One row alone let collisions
//! with common words swamp the counts of rare ones, and the rare words are
//! the ones a vector keeps.
//!
//! Written here rather than taken from a crate: it is two arrays of
//! counters indexed by a hash the caller already has, with halving, which
//! the count-min crates do not offer.

pub struct DocFreq {
    /// Two rows of `mask + 1` counters, one after the other.
    counts: Vec<u16>,
    mask: u32,
    docs: u32,
    halve_at: u32,
}

impl DocFreq {
    /// A table for a window of `window` articles: 16 counters per article
    /// in two rows, between 2^16 and 2^22 counters.
    pub fn for_window(window: usize) -> Self {
        Self::sized(window, 16, 1 << 22)
    }

    /// A table for a window of `window` documents of up to `per_doc`
    /// distinct items each (dedup counts the 48 shingle hashes of each
    /// article's sketch): `per_doc` counters per document in two rows,
    /// between 2^16 and 2^23 counters.
    pub fn for_window_of(window: usize, per_doc: usize) -> Self {
        Self::sized(window, per_doc, 1 << 23)
    }

    fn sized(window: usize, per_doc: usize, most: usize) -> Self {
        let buckets = window
            .saturating_mul(per_doc)
            .checked_next_power_of_two()
            .unwrap_or(most)
            .clamp(1 << 16, most);
        DocFreq {
            counts: vec![0; buckets],
            mask: (buckets / 2 - 1) as u32,
            docs: 0,
            halve_at: window.clamp(1_000, u32::MAX as usize / 2) as u32,
        }
    }

    /// Articles counted (after halvings).
    pub fn docs(&self) -> u32 {
        self.docs
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.counts.len() * std::mem::size_of::<u16>()
    }

    /// The term's counter in each row: row two's index is another hash
    /// of the (already hashed) term.
    fn cells(&self, term: u32) -> [usize; 2] {
        let second = term.wrapping_mul(0x9e37_79b1).rotate_left(16) & self.mask;
        [
            (term & self.mask) as usize,
            (self.mask as usize + 1) + second as usize,
        ]
    }

    /// Documents that contained `term` (at least; rarely more).
    pub fn df(&self, term: u32) -> u32 {
        let [a, b] = self.cells(term);
        u32::from(self.counts[a].min(self.counts[b]))
    }

    /// Smoothed inverse document frequency: `ln((N + 1) / (df + 1)) + 1`.
    pub fn idf(&self, term: u32) -> f32 {
        ((self.docs as f32 + 1.0) / (self.df(term) as f32 + 1.0)).ln() + 1.0
    }

    /// Counts one document's distinct terms.
    pub fn add(&mut self, terms: impl Iterator<Item = u32>) {
        for t in terms {
            let [a, b] = self.cells(t);
            let least = self.counts[a].min(self.counts[b]);
            let next = least.saturating_add(1);
            for cell in [a, b] {
                if self.counts[cell] == least {
                    self.counts[cell] = next;
                }
            }
        }
        self.docs += 1;
        if self.docs >= self.halve_at {
            for c in &mut self.counts {
                *c /= 2;
            }
            self.docs /= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_documents_and_halves_with_the_stream() {
        let mut df = DocFreq::for_window(10);
        assert_eq!(df.bytes(), (1 << 16) * 2);
        for i in 0..999u32 {
            df.add([1u32, 1000 + i].into_iter());
        }
        assert_eq!(df.df(1), 999);
        assert_eq!(df.df(1000), 1);
        assert!(df.idf(1) < df.idf(1000) && df.idf(77) > df.idf(1000));
        // The thousandth document halves every count and the total.
        df.add([1u32].into_iter());
        assert_eq!((df.df(1), df.docs()), (500, 500));
        assert_eq!(df.df(1000), 0);
    }

    #[test]
    fn size_follows_the_window_within_bounds() {
        assert_eq!(DocFreq::for_window(100_000).bytes(), (1 << 21) * 2);
        assert_eq!(DocFreq::for_window(10_000).bytes(), (1 << 18) * 2);
        assert_eq!(DocFreq::for_window(usize::MAX).bytes(), (1 << 22) * 2);
        assert_eq!(DocFreq::for_window_of(100_000, 48).bytes(), (1 << 23) * 2);
        assert_eq!(DocFreq::for_window_of(10, 48).bytes(), (1 << 16) * 2);
    }
}
