//! Which shingle hashes of its sketch an article is posted and looked up
//! under in the candidate index ([`crate::postings`]).
//!
//! Posting and looking up under the smallest hashes alone (a bottom-k
//! sketch's order, which two copies share) let text common to many
//! articles hide an original: when most of its words are wire copy or
//! boilerplate, its smallest hashes are shingles that hundreds of articles
//! have, later ones push it out of those keys' capped postings, and its
//! verbatim copy found no candidate (issue 34). So keys are ranked by how many recent articles
//! have each (counted in a [`DocFreq`] table) and then by hash: an original
//! is found under the shingles only it and its copies have, and text common
//! to many articles ranks last, which keeps the candidates few too. This is
//! prefix filtering's order (rarest first) over a bottom-k sample; written
//! here since it is this index's own policy.

use gleaner_text::docfreq::DocFreq;

/// Most sketch hashes (the smallest) an article is ranked, looked up and
/// posted under: one bit each in a window entry's mask of posted keys.
pub const MAX_KEYS: usize = 64;

/// The band of the commonest keys: looked up only to make up the least
/// number of lookups, never posted under by the smallest-hash turn.
pub const COMMONEST: u8 = 3;

/// How common a key is, from how many recent articles have it. Keys are
/// ranked by band so that counts a little off (the counting table is
/// approximate, and a copy sees its original's keys once more than the
/// original did) leave the order alone.
pub fn band(df: u32) -> u8 {
    match df {
        0..=3 => 0,
        4..=15 => 1,
        16..=63 => 2,
        _ => COMMONEST,
    }
}

/// A sketch hash by its position in the sketch, with its band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub band: u8,
    pub pos: u8,
}

/// The sketch's first [`MAX_KEYS`] hashes, rarest first: by [`band`] of
/// `df`, then by hash (the sketch is ascending, so by position). An
/// article is looked up under at least the first `2 * index_keys` of
/// these and under every one outside the commonest band.
pub fn ranked_keys(sketch: &[u32], df: &DocFreq) -> Vec<Key> {
    let mut keys: Vec<Key> = sketch
        .iter()
        .take(MAX_KEYS)
        .enumerate()
        .map(|(i, &k)| Key {
            band: band(df.df(k)),
            pos: i as u8,
        })
        .collect();
    keys.sort_unstable();
    keys
}

/// The positions an article is posted under, in order (it takes the first
/// `index_keys`): its rarest keys and its
/// smallest hashes outside the commonest band, in turns. The rarest alone
/// failed a copy that arrived before its original: an edited copy's rarest
/// shingles are its edits, which the original lacks, while its smallest
/// hashes are the original's with the odds of any of its shingles (about
/// two in three for a word in twelve changed).
pub fn posting_order(keys: &[Key]) -> Vec<u8> {
    let mut smallest: Vec<u8> = keys
        .iter()
        .filter(|k| k.band < COMMONEST)
        .map(|k| k.pos)
        .collect();
    smallest.sort_unstable();
    let mut order = Vec::with_capacity(keys.len());
    let mut taken = 0u64;
    let mut rarest = keys.iter().map(|k| k.pos);
    let mut smallest = smallest.into_iter();
    loop {
        let (a, b) = (rarest.next(), smallest.next());
        if a.is_none() && b.is_none() {
            return order;
        }
        for i in [a, b].into_iter().flatten() {
            if taken & (1 << i) == 0 {
                taken |= 1 << i;
                order.push(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(band: u8, pos: u8) -> Key {
        Key { band, pos }
    }

    #[test]
    fn keys_rank_by_band_then_hash() {
        let mut df = DocFreq::for_window(1000);
        // Hash 10 is in 100 articles, 20 in 5, 30 and 40 in none.
        for n in 0..100 {
            let mut keys = vec![10u32];
            if n < 5 {
                keys.push(20);
            }
            df.add(keys.into_iter());
        }
        let got = ranked_keys(&[10, 20, 30, 40], &df);
        assert_eq!(got, vec![key(0, 2), key(0, 3), key(1, 1), key(3, 0)]);
        // A count off by one within a band changes nothing.
        assert_eq!(band(1), band(2));
        assert!(band(3) < band(4) && band(63) < band(64));
    }

    #[test]
    fn postings_alternate_rarest_and_smallest_once_each_without_the_commonest() {
        // Positions 0 and 1 (smallest hashes) are common, 4 and 5 rare.
        let keys = [key(0, 4), key(0, 5), key(1, 1), key(2, 2), key(3, 0)];
        assert_eq!(posting_order(&keys), vec![4, 1, 5, 2, 0]);
        // Every key once; the commonest only after every other.
        let keys = [key(0, 3), key(3, 0), key(3, 1)];
        assert_eq!(posting_order(&keys), vec![3, 0, 1]);
        assert!(posting_order(&[]).is_empty());
    }
}
