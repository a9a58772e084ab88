//! A Bloom filter of seen URLs, sized from a capacity and a false-positive
//! rate: m = −n·ln p / (ln 2)², k = (m / n)·ln 2, with double hashing.

use gleaner_core::util::fnv1a64;

#[derive(Clone)]
pub struct Bloom {
    bits: Vec<u64>,
    m: u64,
    k: u32,
    inserted: u64,
}

impl Bloom {
    pub fn new(capacity: usize, fp_rate: f64) -> Self {
        let n = capacity.max(1) as f64;
        let m = ((-n * fp_rate.ln()) / (std::f64::consts::LN_2.powi(2)))
            .ceil()
            .max(64.0) as u64;
        let k = ((m as f64 / n) * std::f64::consts::LN_2)
            .round()
            .clamp(1.0, 30.0) as u32;
        Bloom {
            bits: vec![0; m.div_ceil(64) as usize],
            m,
            k,
            inserted: 0,
        }
    }

    fn positions(&self, item: &str) -> impl Iterator<Item = u64> + '_ {
        let h1 = fnv1a64(item.as_bytes());
        let h2 = fnv1a64(&[item.as_bytes(), b"\x01"].concat()) | 1;
        (0..u64::from(self.k)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % self.m)
    }

    pub fn contains(&self, item: &str) -> bool {
        self.positions(item)
            .all(|p| self.bits[(p / 64) as usize] & (1 << (p % 64)) != 0)
    }

    /// Adds an item; returns true if it was (probably) there already.
    pub fn insert(&mut self, item: &str) -> bool {
        let positions: Vec<u64> = self.positions(item).collect();
        let mut present = true;
        for p in positions {
            let (w, b) = ((p / 64) as usize, 1u64 << (p % 64));
            present &= self.bits[w] & b != 0;
            self.bits[w] |= b;
        }
        if !present {
            self.inserted += 1;
        }
        present
    }

    /// Bytes of memory the bit array takes.
    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
    }

    pub fn hashes(&self) -> u32 {
        self.k
    }

    pub fn len(&self) -> u64 {
        self.inserted
    }

    pub fn is_empty(&self) -> bool {
        self.inserted == 0
    }
}

impl Bloom {
    /// The filter as bytes: m, k, count, then the bit words, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.bits.len() * 8);
        out.extend_from_slice(&self.m.to_le_bytes());
        out.extend_from_slice(&u64::from(self.k).to_le_bytes());
        out.extend_from_slice(&self.inserted.to_le_bytes());
        for w in &self.bits {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Reads [`Bloom::to_bytes`]; `None` if the bytes are not a filter of
    /// the same size as `like` (the configuration changed).
    pub fn from_bytes(bytes: &[u8], like: &Bloom) -> Option<Bloom> {
        let word = |i: usize| {
            bytes
                .get(i * 8..i * 8 + 8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        };
        let (m, k, inserted) = (word(0)?, word(1)?, word(2)?);
        if m != like.m || k != u64::from(like.k) || bytes.len() != 24 + like.bits.len() * 8 {
            return None;
        }
        let bits = (0..like.bits.len())
            .map(|i| word(3 + i).unwrap_or(0))
            .collect();
        Some(Bloom {
            bits,
            m,
            k: like.k,
            inserted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_false_negatives_and_fp_rate_near_target() {
        let mut b = Bloom::new(10_000, 0.01);
        for i in 0..10_000 {
            assert!(!b.insert(&format!("https://x.test/{i}")) || i > 0);
        }
        assert!((0..10_000).all(|i| b.contains(&format!("https://x.test/{i}"))));
        let fp = (0..20_000)
            .filter(|i| b.contains(&format!("https://y.test/{i}")))
            .count();
        assert!(fp < 20_000 * 3 / 100, "false positives {fp} of 20000");
    }
}
