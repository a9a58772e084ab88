//! What the window keeps of an article's text, in one allocation: its
//! sketch, its vector (term ids, and weights as 16-bit fractions) and its
//! term filter. One boxed slice instead of three saves their headers and
//! the allocator's, about a tenth of the window's memory.

use crate::termset;

pub struct Stored {
    /// sketch ‖ vector ids ‖ vector weights, two per word ‖ term filter.
    data: Box<[u32]>,
    sketch_len: u16,
    vector_len: u16,
}

impl Stored {
    /// Packs a sketch, a unit vector and every term of the text.
    pub fn new(sketch: &[u32], vector: &[(u32, f32)], terms: &[(u32, u16)]) -> Stored {
        // The config allows far fewer than u16::MAX of each (window.rs).
        let sketch = &sketch[..sketch.len().min(u16::MAX as usize)];
        let vector = &vector[..vector.len().min(u16::MAX as usize)];
        let mut data = Vec::with_capacity(
            sketch.len()
                + vector.len()
                + vector.len().div_ceil(2)
                + termset::words_for(terms.len()),
        );
        data.extend_from_slice(sketch);
        data.extend(vector.iter().map(|t| t.0));
        for pair in vector.chunks(2) {
            let q = |w: f32| (w.clamp(0.0, 1.0) * 65535.0).round() as u32;
            data.push(q(pair[0].1) | pair.get(1).map_or(0, |t| q(t.1) << 16));
        }
        termset::write(terms.iter().map(|t| t.0), &mut data);
        Stored {
            data: data.into_boxed_slice(),
            sketch_len: sketch.len() as u16,
            vector_len: vector.len() as u16,
        }
    }

    pub fn sketch(&self) -> &[u32] {
        &self.data[..usize::from(self.sketch_len)]
    }

    /// The vector's terms with their weights.
    pub fn vector(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        let s = usize::from(self.sketch_len);
        let v = usize::from(self.vector_len);
        let ids = &self.data[s..s + v];
        let weights = &self.data[s + v..s + v + v.div_ceil(2)];
        ids.iter().enumerate().map(move |(i, &t)| {
            let w = (weights[i / 2] >> (16 * (i % 2))) & 0xffff;
            (t, w as f32 / 65535.0)
        })
    }

    /// True if the text may have had `term`; false if it did not.
    pub fn has_term(&self, term: u32) -> bool {
        let v = usize::from(self.vector_len);
        let start = usize::from(self.sketch_len) + v + v.div_ceil(2);
        termset::contains(&self.data[start..], term)
    }

    pub fn bytes(&self) -> usize {
        self.data.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_reads_back() {
        let sketch = [3, 9, 27];
        let vector = [(5, 0.6), (7, 0.8), (11, 0.0)];
        let terms = [(5, 1), (7, 2), (11, 1), (13, 4)];
        let s = Stored::new(&sketch, &vector, &terms);
        assert_eq!(s.sketch(), &sketch);
        let back: Vec<(u32, f32)> = s.vector().collect();
        assert_eq!(back.len(), 3);
        for ((t, w), (t2, w2)) in back.iter().zip(vector) {
            assert_eq!(*t, t2);
            assert!((w - w2).abs() < 1e-4);
        }
        assert!(terms.iter().all(|t| s.has_term(t.0)));
        assert!(!s.has_term(17) || !s.has_term(19));
        assert_eq!(s.bytes(), (3 + 3 + 2 + 1) * 4);
        let empty = Stored::new(&[], &[], &[]);
        assert!(empty.sketch().is_empty() && empty.vector().next().is_none());
    }
}
