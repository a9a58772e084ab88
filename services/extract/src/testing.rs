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
