//! What the unit tests of the block rules share.

use gleaner_core::messages::Block;

/// A paragraph block of `chars` characters at `path`, with one element
/// number per element of the path.
pub(crate) fn block(path: &str, ancestors: &[u32], chars: u32) -> Block {
    Block {
        text: "x".repeat(chars as usize),
        text_len: chars,
        path: path.into(),
        ancestors: ancestors.to_vec(),
        tag: "p".into(),
        ..Default::default()
    }
}

/// One paragraph block a text, side by side in one `div` (each its own
/// element), as a page's chosen text reaches the rules after the
/// classifiers.
pub(crate) fn paragraphs(texts: &[&str]) -> Vec<Block> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut b = block("html/body/div/p", &[0, 1, 2, i as u32 + 3], 0);
            b.text = (*t).into();
            b.text_len = t.chars().count() as u32;
            b
        })
        .collect()
}
