//! The bulk of a record written zstd-compressed in base64 (a page's HTML),
//! when the Kafka runner turned it on (`kafka.compress_pages`). The HTML is
//! most of what crosses the broker, and the dev broker (tansu) stores
//! records uncompressed whatever `kafka.compression` says, reading and
//! copying every byte again for each fetch. Readers take either form.

use base64::Engine;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// A process-wide setting, since serialization has no config at hand (the
/// Kafka runner sets it once from `kafka.compress_pages`).
static ON: AtomicBool = AtomicBool::new(false);

/// Bulk shorter than this is written as it is (compressing gains little).
pub(crate) const FROM_BYTES: usize = 2048;

/// zstd's fastest level: HTML comes out about five times smaller.
const LEVEL: i32 = 1;

/// Most bytes packed bulk may grow back to (a record claiming more is
/// refused rather than allocated).
pub(crate) const MAX_BYTES: usize = 64 << 20;

/// Writes the pages' HTML compressed from now on.
pub fn compress_pages(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether bulk of `len` bytes is to be packed.
pub(crate) fn wanted(len: usize) -> bool {
    ON.load(Ordering::Relaxed) && len >= FROM_BYTES
}

thread_local! {
    // One zstd context per thread, kept: making one per page (its tables
    // allocated and set up again) showed in perf on both ends.
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// `bytes` compressed with zstd, in base64 (standard alphabet, padded).
pub(crate) fn pack(bytes: &[u8]) -> std::io::Result<String> {
    let z = COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        let c = match c.as_mut() {
            Some(c) => c,
            None => c.insert(zstd::bulk::Compressor::new(LEVEL)?),
        };
        c.compress(bytes)
    })?;
    Ok(base64::engine::general_purpose::STANDARD.encode(z))
}

/// What `field` (written by [`pack`]) carries.
pub(crate) fn unpack(b64: &str, field: &str) -> Result<Vec<u8>, String> {
    let z = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| format!("{field} is not base64: {e}"))?;
    let failed = |e: std::io::Error| {
        format!("{field} does not decompress (zstd, at most {MAX_BYTES} bytes): {e}")
    };
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        let d = match d.as_mut() {
            Some(d) => d,
            None => d.insert(zstd::bulk::Decompressor::new().map_err(failed)?),
        };
        // Sized from the frame's own content size, at most MAX_BYTES.
        d.decompress(&z, MAX_BYTES).map_err(failed)
    })
}
