//! Builds a search bench's index through the index stage: N generated
//! articles (a Zipfian vocabulary, real article lengths, 50 sites, 5
//! languages, dates over a year; 2% reposts, sent as dedup reports them on
//! `duplicates`), committed as `gleaner run`
//! commits (the articles made first, then timed from the first in to the
//! last committed); prints articles/s and index bytes per article, and writes the
//! vocabulary (most frequent first) for the query generator.
//! Usage: bench_index N DATA_DIR [--own-words] [--reposts-as-articles]
//! (the index goes to DATA_DIR/index)
//! The five languages share one generated vocabulary unless `--own-words`
//! gives each its own (each word marked by its language, as real languages
//! differ): shared words flatter a design that puts languages in one field.
//! (For indexing figures only: the vocabulary written for the queries is
//! then not the articles' words.) `--cjk` writes Chinese-like text
//! instead, every article in `zh`: words of one to three characters of
//! the CJK block, no spaces, full stops; the vocabulary file then holds
//! those words, for the search of a lone character and of words.
//! Usage with it: bench_index N DATA_DIR --cjk

use gleaner_core::messages::{Article, Duplicate, Summarized, Summary};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::time::Instant;

const VOCABULARY: usize = 50_000;
const SITES: usize = 50;
const LANGUAGES: [&str; 5] = ["en", "de", "fr", "es", "it"];
/// 2025-01-01T00:00:00Z
const YEAR_START: i64 = 1_735_689_600;

/// A pronounceable word for rank `i`.
fn word(i: usize) -> String {
    const ONSETS: [&str; 16] = [
        "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "br", "st", "tr",
    ];
    const VOWELS: [&str; 6] = ["a", "e", "i", "o", "u", "ai"];
    let mut n = i + 1;
    let mut w = String::new();
    while n > 0 {
        w.push_str(ONSETS[n % ONSETS.len()]);
        n /= ONSETS.len();
        w.push_str(VOWELS[n % VOWELS.len()]);
        n /= VOWELS.len();
    }
    w
}

/// A CJK word for rank `i`: one to three characters of the CJK block, the
/// commonest words the shortest, as in Chinese.
fn cjk_word(i: usize) -> String {
    let len = match i {
        0..200 => 1,
        200..20_000 => 2,
        _ => 3,
    };
    let mut n = i * 7919 + 1;
    (0..len)
        .map(|_| {
            let c = char::from_u32(0x4E00 + (n % 3500) as u32).unwrap_or('中');
            n /= 3500;
            n = n * 31 + 17;
            c
        })
        .collect()
}

/// Ranks drawn with probability ∝ 1/rank (Zipf, s = 1), by inverting the
/// cumulative weights.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Self {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect();
        Zipf { cumulative }
    }
    fn draw(&self, rng: &mut SmallRng) -> usize {
        let x = rng.random::<f64>() * self.cumulative.last().copied().unwrap_or(1.0);
        self.cumulative
            .partition_point(|&c| c < x)
            .min(self.cumulative.len() - 1)
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let data = std::path::PathBuf::from(args.get(2).map_or("target/bench-search", String::as_str));
    let dir = data.join("index");
    let _ = std::fs::remove_dir_all(&dir);
    let own_words = args.iter().any(|a| a == "--own-words");
    let reposts_as_articles = args.iter().any(|a| a == "--reposts-as-articles");
    let cjk = args.iter().any(|a| a == "--cjk");
    let words: Vec<String> = (0..VOCABULARY)
        .map(|i| if cjk { cjk_word(i) } else { word(i) })
        .collect();
    let zipf = Zipf::new(VOCABULARY);
    let mut rng = SmallRng::seed_from_u64(7);
    let text = |rng: &mut SmallRng, len: usize, language: usize| {
        let mut s = String::with_capacity(len * 8);
        for i in 0..len {
            if i > 0 && cjk {
                s.push_str(if i % 17 == 0 { "。" } else { "" });
            } else if i > 0 {
                s.push_str(if i % 17 == 0 { ". " } else { " " });
            }
            if own_words {
                s.push(['q', 'w', 'x', 'y', 'z'][language]);
            }
            s.push_str(&words[zipf.draw(rng)]);
        }
        s.push(if cjk { '。' } else { '.' });
        s
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // The articles are made before the clock starts: making them (the
    // Zipf draws) took a tenth of the CPU the timed run had, on the same
    // two cores the index stage runs on.
    let mut inputs = Vec::with_capacity(n);
    // The last article and its text: a repost copies it.
    let mut last: Option<(usize, String)> = None;
    for i in 0..n {
        let id = format!("a{i}");
        let day = rng.random_range(0..365);
        let site = rng.random_range(0..SITES);
        // 2% are reposts of the article before, and reach the index as
        // dedup reports them, on `duplicates`: listed among its copies
        // (with --reposts-as-articles, as whole articles of its cluster).
        let repost_of = last.as_ref().filter(|_| rng.random::<f64>() < 0.02);
        let repost_of = repost_of.map(|(c, body)| (*c, body.clone()));
        if let Some((c, _)) = repost_of.as_ref().filter(|_| !reposts_as_articles) {
            let d = Duplicate {
                id: id.clone(),
                url: format!("https://news.site{site}.example/{id}"),
                original_id: format!("a{c}"),
                original_url: String::new(),
                similarity: 1.0,
                containment: 1.0,
                cluster: Some(format!("a{c}")),
                correction: false,
                published: Some(
                    jiff::Timestamp::from_second(YEAR_START + day * 86_400)?.to_string(),
                ),
            };
            inputs.push(Input {
                topic: Topic::DUPLICATES,
                key: Some(id.clone()),
                payload: Some(Output::new(Topic::DUPLICATES, id, d).payload),
                origin: None,
            });
            continue;
        }
        // Article lengths of news: mostly 300-900 words, a tail to 3,000.
        let len = (250.0
            * (1.0 + rng.random::<f64>() * 2.5)
            * (1.0 + rng.random::<f64>().powi(4) * 3.0)) as usize;
        let body = match &repost_of {
            Some((_, copied)) => copied.clone(),
            None => text(&mut rng, len, i % LANGUAGES.len()),
        };
        let title = text(&mut rng, 8, i % LANGUAGES.len());
        let s = Summarized {
            article: Article {
                id: id.clone(),
                url: format!("https://news.site{site}.example/{id}"),
                title: title.trim_end_matches('.').to_string(),
                author: None,
                date: Some(format!(
                    "{}",
                    jiff::Timestamp::from_second(
                        YEAR_START + day * 86_400 + rng.random_range(0..86_400)
                    )?
                )),
                language: Some(
                    if cjk {
                        "zh"
                    } else {
                        LANGUAGES[i % LANGUAGES.len()]
                    }
                    .into(),
                ),
                text: body.clone(),
                extractor: "auto".into(),
                fetched_at: String::new(),
                cluster: repost_of.as_ref().map(|(c, _)| format!("a{c}")),
                story: None,
                ..Default::default()
            },
            summaries: vec![Summary {
                name: "one_sentence".into(),
                text: body.split(". ").next().unwrap_or("").to_string(),
            }],
            engine: "extractive".into(),
        };
        if repost_of.is_none() {
            last = Some((i, body.clone()));
        }
        inputs.push(Input {
            topic: Topic::SUMMARIZED,
            key: Some(id.clone()),
            payload: Some(Output::new(Topic::SUMMARIZED, id, s).payload),
            origin: None,
        });
    }
    // Committed as the index stage's defaults commit (pipelines.toml).
    let stage_settings = gleaner_index::IndexSettings::default();
    let mut stage = gleaner_index::IndexStage::open(
        &dir,
        stage_settings.writer_heap_bytes,
        stage_settings.writer_threads,
    )?
    .committing_as(&stage_settings);
    let started = Instant::now();
    let cpu_started = gleaner_core::util::process_cpu_seconds();
    for batch in inputs.chunks(64) {
        for r in rt.block_on(stage.handle_batch(batch)) {
            r?;
        }
    }
    rt.block_on(stage.close())?;
    let secs = started.elapsed().as_secs_f64();
    let cpu = gleaner_core::util::process_cpu_seconds() - cpu_started;
    let bytes: u64 = std::fs::read_dir(&dir)?
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    let mut vocab = std::io::BufWriter::new(std::fs::File::create(data.join("vocab.txt"))?);
    for w in words.iter().take(20_000) {
        writeln!(vocab, "{w}")?;
    }
    let articles: Vec<&Summarized> = inputs
        .iter()
        .filter_map(|i| i.payload.as_ref()?.typed_ref::<Summarized>())
        .collect();
    let text_mb = articles
        .iter()
        .map(|s| (s.article.title.len() + s.article.text.len()) as f64 / 1e6)
        .sum::<f64>();
    // Rates per article: the reposts (a small document each) are not counted.
    let n = articles.len();
    println!(
        "indexed {n} articles (and {} reposts) in {secs:.1} s: {:.0} articles/s ({:.1} MB of text/s); index {:.0} MB, {:.0} bytes per article",
        inputs.len() - n,
        n as f64 / secs,
        text_mb / secs,
        bytes as f64 / 1e6,
        bytes as f64 / n as f64
    );
    let base_cpu_started = gleaner_core::util::process_cpu_seconds();
    let base_secs = plain_tantivy(&inputs, &data.join("baseline"), &stage_settings)?;
    let base_cpu = gleaner_core::util::process_cpu_seconds() - base_cpu_started;
    println!(
        "baseline, plain Tantivy on the same articles: {:.0} articles/s; gleaner / baseline {:.2}",
        n as f64 / base_secs,
        base_secs / secs
    );
    // CPU time varies less than wall time on a shared machine (a run's
    // wall time here once doubled with the same CPU spent).
    println!(
        "CPU seconds per 1,000 articles: gleaner {:.2}, plain Tantivy {:.2}; baseline / gleaner {:.2}",
        cpu * 1000.0 / n as f64,
        base_cpu * 1000.0 / n as f64,
        base_cpu / cpu
    );
    Ok(())
}

/// Seconds plain Tantivy takes to index the same titles and bodies (its
/// default tokenizer, positions, stored; no stemming, no pairs, no other
/// field) with the same memory and threads, committed once: the ceiling
/// the index stage is measured against.
fn plain_tantivy(
    inputs: &[Input],
    dir: &std::path::Path,
    settings: &gleaner_index::IndexSettings,
) -> anyhow::Result<f64> {
    use tantivy::schema::{Schema, STORED, STRING, TEXT};
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let mut schema = Schema::builder();
    let id = schema.add_text_field("id", STRING | STORED);
    let title = schema.add_text_field("title", TEXT | STORED);
    let body = schema.add_text_field("body", TEXT | STORED);
    let index = tantivy::Index::create_in_dir(dir, schema.build())?;
    let mut writer: tantivy::IndexWriter =
        index.writer_with_num_threads(settings.writer_threads, settings.writer_heap_bytes)?;
    let started = Instant::now();
    for s in inputs
        .iter()
        .filter_map(|i| i.payload.as_ref()?.typed_ref::<Summarized>())
    {
        let mut d = tantivy::TantivyDocument::default();
        d.add_text(id, &s.article.id);
        d.add_text(title, &s.article.title);
        d.add_text(body, &s.article.text);
        writer.add_document(d)?;
    }
    writer.commit()?;
    let secs = started.elapsed().as_secs_f64();
    drop(writer);
    let _ = std::fs::remove_dir_all(dir);
    Ok(secs)
}
