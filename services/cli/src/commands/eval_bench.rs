//! `gleaner eval DIR --bench`: how fast extraction runs against a bare
//! lol_html pass over the same pages.

use crate::commands::eval_set::load;
use gleaner_core::messages::Cleaned;
use gleaner_extract::Extractor;
use std::path::Path;
use std::time::Instant;

/// `gleaner eval DIR --bench`: pages/s of clean + extract and of a bare
/// lol_html pass over the same pages in memory, on one thread, and their
/// ratio. Each is timed over `rounds` passes, alternating, best round kept.
pub fn bench(dir: &Path, which: Extractor, rounds: usize) -> anyhow::Result<()> {
    let samples = load(dir)?;
    anyhow::ensure!(!samples.is_empty(), "no pages in {}", dir.display());
    let (mut best_bare, mut best_full, mut best_clean) = (f64::MAX, f64::MAX, f64::MAX);
    let mut best_floor = f64::MAX;
    let mut sink = 0usize;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        for s in &samples {
            sink += gleaner_clean::bare_text(&s.html).len();
        }
        best_bare = best_bare.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for s in &samples {
            sink += gleaner_clean::structural_floor(&s.html);
        }
        best_floor = best_floor.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for s in &samples {
            sink += gleaner_clean::clean_html(&s.html)
                .map(|c| c.2.len())
                .unwrap_or(0);
        }
        best_clean = best_clean.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for s in &samples {
            if let Ok((title, meta, blocks)) = gleaner_clean::clean_html(&s.html) {
                let c = Cleaned {
                    id: String::new(),
                    url: s.url.clone(),
                    final_url: String::new(),
                    fetched_at: String::new(),
                    title,
                    meta,
                    blocks,
                };
                sink += gleaner_extract::extract(&c, which).text.len();
            }
        }
        best_full = best_full.min(t.elapsed().as_secs_f64());
    }
    let n = samples.len() as f64;
    let (bare, full) = (n / best_bare, n / best_full);
    println!(
        "pages={} rounds={} (output bytes {sink})",
        samples.len(),
        rounds.max(1)
    );
    println!("bare lol_html pass: {bare:.1} pages/s");
    println!(
        "lol_html with a no-op handler on every element and end tag (the floor of a structural pass): {:.1} pages/s",
        n / best_floor
    );
    println!("clean alone: {:.1} pages/s", n / best_clean);
    println!("{} (clean + extract): {full:.1} pages/s", which.name());
    println!("ratio {}/bare = {:.3}", which.name(), full / bare);
    Ok(())
}
