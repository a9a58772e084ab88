//! Criterion benches of clean and extract on real pages: the first 200 of
//! the WCXB development set when it is beside the repository (or at
//! $GLEANER_BENCH_PAGES), else the example site. The bare lol_html pass is
//! benched alongside as the baseline. scripts/bench-extract.sh gives the
//! whole-set figures and the ratio.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gleaner_core::messages::Cleaned;
use gleaner_extract::{extract, Extractor};
use std::io::Read;
use std::path::{Path, PathBuf};

fn pages() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wcxb = std::env::var_os("GLEANER_BENCH_PAGES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/datasets/wcxb-dev/html"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&wcxb)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    if files.is_empty() {
        files = [
            "index.html",
            "news/bridge-reopens.html",
            "news/market-hall.html",
        ]
        .iter()
        .map(|f| root.join("examples/site").join(f))
        .collect();
    }
    files.sort();
    files
        .iter()
        .take(200)
        .filter_map(|f| {
            let raw = std::fs::read(f).ok()?;
            let mut out = Vec::new();
            if f.extension().is_some_and(|e| e == "gz") {
                flate2::read::GzDecoder::new(&raw[..])
                    .read_to_end(&mut out)
                    .ok()?;
            } else {
                out = raw;
            }
            Some(String::from_utf8_lossy(&out).into_owned())
        })
        .collect()
}

fn cleaned(html: &str) -> Cleaned {
    let (title, meta, blocks) = gleaner_clean::clean_html(html).unwrap();
    Cleaned {
        id: String::new(),
        url: "http://bench.test/".into(),
        final_url: String::new(),
        fetched_at: String::new(),
        title,
        meta,
        blocks,
    }
}

fn bench(c: &mut Criterion) {
    let pages = pages();
    let bytes: usize = pages.iter().map(String::len).sum();
    let mut g = c.benchmark_group("pages");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10);
    g.bench_function("bare_lol_html", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|p| gleaner_clean::bare_text(p).len())
                .sum::<usize>()
        })
    });
    g.bench_function("clean", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|p| gleaner_clean::clean_html(p).map(|c| c.2.len()).unwrap_or(0))
                .sum::<usize>()
        })
    });
    let cleaned: Vec<Cleaned> = pages.iter().map(|p| cleaned(p)).collect();
    for which in ["density", "lines", "auto"] {
        let w: Extractor = which.parse().unwrap();
        g.bench_function(format!("extract_{which}"), |b| {
            b.iter(|| {
                cleaned
                    .iter()
                    .map(|c| extract(c, w).text.len())
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
