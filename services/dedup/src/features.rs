//! What dedup keeps of an article's text, computed once, without the window:
//! hashed term counts (for the TF-IDF vector), a bottom-k sketch of its word
//! 4-gram hashes (for containment and for finding candidates), the number of
//! number of distinct content words and a hash of the whole text (to tell a replay
//! from an update). Pure, so a batch is computed in parallel.

use gleaner_core::util::fnv1a64;

/// Words per shingle. Four keeps a lightly edited copy (a word in twelve
/// changed) at about two thirds of its shingles, while two different
/// reports of one event share only stock phrases.
pub const SHINGLE_WORDS: usize = 4;

#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// Distinct terms (hashed, stop words left out) with their counts,
    /// ascending by term.
    pub terms: Vec<(u32, u16)>,
    /// The smallest `sketch_size` distinct shingle hashes, ascending: a
    /// uniform sample of the text's shingles that two texts take alike.
    pub sketch: Vec<u32>,
    /// Distinct terms that are not numbers.
    pub content_words: u32,
    /// Of the title and text as given.
    pub text_hash: u64,
}

/// A strong 64-bit mix (MurmurHash3's finaliser), so that sums of word
/// hashes become uniform shingle hashes.
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl Features {
    /// Features of an article's title and text.
    pub fn of(title: &str, text: &str, sketch_size: usize) -> Features {
        // Each non-stop word as (term id, is a number), merged into counts below.
        let mut words: Vec<(u32, bool)> = Vec::with_capacity(512);
        let mut shingles: Vec<u32> = Vec::with_capacity(1024);
        let mut last = [0u64; SHINGLE_WORDS];
        let mut seen = 0usize;
        for part in [title, text] {
            gleaner_text::for_each_word(part, |w| {
                let h = fnv1a64(w.as_bytes());
                // The shingle of the last SHINGLE_WORDS words, in order.
                last.rotate_left(1);
                last[SHINGLE_WORDS - 1] = h;
                seen += 1;
                if seen >= SHINGLE_WORDS {
                    shingles.push(shingle_hash(&last));
                }
                if !gleaner_text::is_stop_word(w) {
                    let number = w.bytes().all(|b| b.is_ascii_digit());
                    words.push(((h >> 32) as u32 ^ h as u32, number));
                }
            });
        }
        // A text shorter than a shingle is one shingle.
        if (1..SHINGLE_WORDS).contains(&seen) {
            shingles.push(shingle_hash(&last));
        }
        words.sort_unstable_by_key(|t| t.0);
        let mut terms: Vec<(u32, u16)> = Vec::with_capacity(words.len());
        let mut content_words = 0u32;
        for (t, number) in words {
            match terms.last_mut() {
                Some(last) if last.0 == t => last.1 = last.1.saturating_add(1),
                _ => {
                    terms.push((t, 1));
                    content_words += u32::from(!number);
                }
            }
        }
        Features {
            terms,
            sketch: bottom_k(shingles, sketch_size),
            content_words,
            text_hash: gleaner_core::util::fnv1a64_parts(&[
                title.as_bytes(),
                b"\n",
                text.as_bytes(),
            ]),
        }
    }
}

fn shingle_hash(words: &[u64; SHINGLE_WORDS]) -> u32 {
    let mut s = 0u64;
    for &x in words {
        s = s.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(x);
    }
    (fmix64(s) >> 32) as u32
}

/// The `k` smallest distinct values, ascending.
fn bottom_k(mut v: Vec<u32>, k: usize) -> Vec<u32> {
    if k == 0 {
        return Vec::new();
    }
    // Selecting first keeps the sort to about k values on long texts;
    // 4k leaves room for repeated shingles before dedup.
    let keep = k.saturating_mul(4);
    if v.len() > keep {
        v.select_nth_unstable(keep);
        v.truncate(keep);
    }
    v.sort_unstable();
    v.dedup();
    v.truncate(k);
    v.shrink_to_fit();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_counted_without_stop_words_and_content_words_without_numbers() {
        let f = Features::of("Bridge", "The bridge opened in 2024, the bridge.", 64);
        // bridge (3), opened, 2024: "the" and "in" are stop words.
        assert_eq!(f.terms.len(), 3);
        assert_eq!(f.terms.iter().map(|t| u32::from(t.1)).sum::<u32>(), 5);
        assert_eq!(f.content_words, 2, "bridge and opened; 2024 is a number");
        assert!(f.terms.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn sketch_is_the_smallest_distinct_shingle_hashes() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let f = Features::of("", text, 4);
        assert_eq!(f.sketch.len(), 4);
        assert!(f.sketch.windows(2).all(|w| w[0] < w[1]));
        let all = Features::of("", text, 100);
        assert_eq!(all.sketch.len(), 12 - SHINGLE_WORDS + 1);
        assert_eq!(&all.sketch[..4], &f.sketch[..], "a prefix of the full set");
        // Case and punctuation do not change a shingle.
        let shout = Features::of("", &text.to_uppercase().replace(' ', ", "), 100);
        assert_eq!(shout.sketch, all.sketch);
        // A different word order does.
        let other = Features::of("", "two one three four five six", 100);
        assert_ne!(other.sketch[..], all.sketch[..3]);
    }

    #[test]
    fn text_hash_tells_an_update_from_a_replay() {
        let a = Features::of("T", "Some text here.", 8);
        assert_eq!(
            a.text_hash,
            Features::of("T", "Some text here.", 8).text_hash
        );
        assert_ne!(
            a.text_hash,
            Features::of("T", "Some text there.", 8).text_hash
        );
        assert_ne!(
            a.text_hash,
            Features::of("Some", "T text here.", 8).text_hash
        );
    }

    #[test]
    fn empty_and_tiny_texts() {
        let e = Features::of("", "", 8);
        assert!(e.terms.is_empty() && e.sketch.is_empty() && e.content_words == 0);
        let t = Features::of("", "two words", 8);
        assert_eq!(t.sketch.len(), 1);
    }
}
