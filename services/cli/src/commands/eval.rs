//! `gleaner eval DIR`: scores an extractor on a labelled set in the WCXB
//! layout (`html/ID.html.gz`, `ground-truth/ID.json`) with the set's metric:
//! per-page word precision, recall and F1 over token multisets, averaged
//! with every page weighing the same; plus snippet checks, metadata
//! accuracy, and pages/s of clean + extract on one thread, HTML in memory.

use crate::args::Common;
use crate::commands::eval_meta::{
    author_matches, date_matches, language_matches, norm, primary_language, title_matches, Hits,
};
use crate::commands::eval_set::{load, Sample};
use crate::commands::{config, extractor_of, init_logs};
use clap::Args;
use gleaner_core::messages::Cleaned;
use gleaner_extract::Extractor;
use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The metric's tokens: lowercase, maximal runs of word characters.
pub fn tokens(text: &str) -> Vec<String> {
    gleaner_text::word_runs(text)
}

/// (precision, recall, F1) of a prediction against a reference.
pub fn prf(pred: &str, reference: &str) -> (f64, f64, f64) {
    let (p, r) = (tokens(pred), tokens(reference));
    if r.is_empty() {
        let s = if p.is_empty() { 1.0 } else { 0.0 };
        return (s, s, s);
    }
    if p.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for t in &r {
        *counts.entry(t).or_insert(0) += 1;
    }
    let mut common = 0usize;
    for t in &p {
        if let Some(c) = counts.get_mut(t.as_str()) {
            if *c > 0 {
                *c -= 1;
                common += 1;
            }
        }
    }
    let precision = common as f64 / p.len() as f64;
    let recall = common as f64 / r.len() as f64;
    let f1 = if common == 0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    (precision, recall, f1)
}

/// Whether a snippet occurs in the text, comparing token sequences.
fn contains_snippet(text_norm: &str, snippet: &str) -> bool {
    let s = norm(snippet);
    !s.is_empty() && text_norm.contains(&s)
}

#[derive(Default, Clone, serde::Serialize)]
pub struct Scores {
    pub pages: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// The standard error of the mean F1 ([`standard_error`]; 0 while
    /// summing): how far the mean could move on another set of as many
    /// pages, so that a difference smaller than about twice it is not
    /// read as one extractor beating another.
    pub f1_se: f64,
    /// Each page's F1, for the standard error.
    #[serde(skip)]
    f1s: Vec<f64>,
}

impl Scores {
    fn add(&mut self, (p, r, f): (f64, f64, f64)) {
        self.pages += 1;
        self.precision += p;
        self.recall += r;
        self.f1 += f;
        self.f1s.push(f);
    }
    fn mean(&self) -> Scores {
        let n = self.pages.max(1) as f64;
        Scores {
            pages: self.pages,
            precision: self.precision / n,
            recall: self.recall / n,
            f1: self.f1 / n,
            f1_se: standard_error(&self.f1s),
            f1s: Vec::new(),
        }
    }
}

/// The standard error of the mean of `v` (sample standard deviation over
/// the square root of its length; 0 for fewer than two values): of pages'
/// F1s here, of pairs' gains over the lead in `eval-summaries`.
/// Hand-written: two sums.
pub(crate) fn standard_error(v: &[f64]) -> f64 {
    let n = v.len() as f64;
    if v.len() < 2 {
        return 0.0;
    }
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (var / n).sqrt()
}

/// Options of `gleaner eval`.
pub struct Options {
    pub per_type: bool,
    pub json: bool,
    /// Only the pages whose ids this file lists (one per line).
    pub ids: Option<PathBuf>,
    /// Writes every block's features and label (JSON lines) for training.
    pub dump_features: Option<PathBuf>,
    /// Writes every page's scores and extracted text (JSON lines).
    pub per_page: Option<PathBuf>,
    /// Scores the training labels instead of the extractor: the blocks
    /// labelled content, joined (the best a block classifier can do).
    pub oracle: bool,
}

/// One JSON line per block: features, whether most of its tokens are in the
/// reference, its token and word counts, text, tag path, whether the chrome
/// filter drops it, and the page's id, domain and type.
fn dump_rows(w: &mut impl std::io::Write, s: &Sample, cleaned: &Cleaned) -> anyhow::Result<()> {
    let reference = Reference::new(&s.truth.main_content);
    let host = gleaner_core::util::host_of(&s.url);
    let labels: Vec<&str> = host.rsplit('.').take(2).collect();
    let domain = labels.into_iter().rev().collect::<Vec<_>>().join(".");
    let f = gleaner_extract::feature_rows(cleaned);
    for (i, (b, x)) in cleaned.blocks.iter().zip(f.rows).enumerate() {
        let share = reference.share_of_block(&b.text);
        let row = serde_json::json!({"page": s.id, "domain": domain, "type": s.page_type, "w": tokens(&b.text).len(), "words": f.words[i], "y": share >= 0.5, "share": share, "x": x, "text": b.text, "path": b.path, "drop": f.dropped[i]});
        writeln!(w, "{row}")?;
    }
    Ok(())
}

/// The reference text as labels see it: its words and its word pairs.
struct Reference {
    words: std::collections::HashSet<String>,
    pairs: std::collections::HashSet<(String, String)>,
}

impl Reference {
    fn new(text: &str) -> Self {
        let r = tokens(text);
        Reference {
            pairs: r.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect(),
            words: r.into_iter().collect(),
        }
    }

    /// Whether a block is content: at least half of its word pairs (its
    /// word, for a one-word block) occur in the reference. Pairs, not single
    /// words: nearly every block shares words like "the" with the
    /// reference, and labels from single words (half of the block's words in
    /// the reference) select blocks scoring only F1 0.836 on wcxb-dev,
    /// against 0.940 with pairs.
    fn contains_block(&self, text: &str) -> bool {
        self.share_of_block(text) >= 0.5
    }

    /// The share of a block's word pairs (its word, for a one-word block)
    /// that occur in the reference: `contains_block`'s measure, dumped as
    /// a soft label for training.
    fn share_of_block(&self, text: &str) -> f64 {
        let t = tokens(text);
        match t.len() {
            0 => 0.0,
            1 => f64::from(u8::from(self.words.contains(&t[0]))),
            n => {
                let hit = t
                    .windows(2)
                    .filter(|w| self.pairs.contains(&(w[0].clone(), w[1].clone())))
                    .count();
                hit as f64 / (n - 1) as f64
            }
        }
    }
}

/// Mean scores per group, one line each.
fn print_table(group: &str, by: &BTreeMap<String, Scores>) {
    println!(
        "{group:<16} {:>6} {:>7} {:>7} {:>7} {:>7}",
        "pages", "F1", "P", "R", "F1 se"
    );
    for (t, s) in by {
        let s = s.mean();
        println!(
            "{:<16} {:>6} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
            t, s.pages, s.f1, s.precision, s.recall, s.f1_se
        );
    }
}

pub fn run(dir: &Path, which: Extractor, opts: &Options) -> anyhow::Result<()> {
    let (per_type, json) = (opts.per_type, opts.json);
    let mut samples = load(dir)?;
    if let Some(ids) = &opts.ids {
        let keep: std::collections::HashSet<String> = std::fs::read_to_string(ids)?
            .lines()
            .map(|l| l.trim().to_string())
            .collect();
        samples.retain(|s| keep.contains(&s.id));
    }
    let mut dump = match &opts.dump_features {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p)?)),
        None => None,
    };
    anyhow::ensure!(!samples.is_empty(), "no pages in {}", dir.display());
    let mut overall = Scores::default();
    let mut by_type: BTreeMap<String, Scores> = BTreeMap::new();
    // By the labelled language's primary subtag, on sets that label it.
    let mut by_language: BTreeMap<String, Scores> = BTreeMap::new();
    let (mut with, mut without) = (Hits::default(), Hits::default());
    // Pages whose reference holds no words, and whether the extractor kept
    // none either: the metric scores such a page 1 or 0, so a set with many
    // (wcxb-dev labels script-rendered pages so, whatever their HTML
    // serves) moves its mean by them alone.
    let mut empty_reference = Hits::default();
    let (mut title, mut author, mut date) = (Hits::default(), Hits::default(), Hits::default());
    // Titles the label's site name aside (the labels keep `<title>`'s).
    let mut headline = Hits::default();
    // How often an article carries its site name, canonical URL and image
    // (the labels have none of them to score against).
    let mut carried = [Hits::default(), Hits::default(), Hits::default()];
    // As output (declared or detected), and detected from the text alone.
    let (mut language, mut detected) = (Hits::default(), Hits::default());
    let mut busy = std::time::Duration::ZERO;
    // The pages are a stream, as in the pipeline: templates are learned
    // per host as they go.
    let mut site = gleaner_extract::SiteState::default();
    let mut per_page = match &opts.per_page {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p)?)),
        None => None,
    };
    for s in &samples {
        let mut t0 = Instant::now();
        let article = match gleaner_clean::clean_html(&s.html) {
            Ok((t, meta, blocks)) => {
                let cleaned = Cleaned {
                    id: s.id.clone(),
                    url: s.url.clone(),
                    final_url: s.url.clone(),
                    fetched_at: String::new(),
                    title: t,
                    meta,
                    blocks,
                };
                let mut article = gleaner_extract::extract_with(&cleaned, which, Some(&mut site));
                if opts.oracle {
                    let reference = Reference::new(&s.truth.main_content);
                    let chosen: Vec<usize> = (0..cleaned.blocks.len())
                        .filter(|&i| reference.contains_block(&cleaned.blocks[i].text))
                        .collect();
                    article.text = gleaner_extract::join_blocks(&cleaned.blocks, &chosen);
                }
                if let Some(w) = dump.as_mut() {
                    busy += t0.elapsed();
                    dump_rows(w, s, &cleaned)?;
                    t0 = Instant::now();
                }
                Some(article)
            }
            Err(e) => {
                eprintln!("{}: {e}", s.id);
                None
            }
        };
        busy += t0.elapsed();
        let text = article.as_ref().map(|a| a.text.as_str()).unwrap_or("");
        let score = prf(text, &s.truth.main_content);
        if tokens(&s.truth.main_content).is_empty() {
            // `prf` scores an empty reference 1 only when nothing was kept.
            empty_reference.add(score.2 == 1.0);
        }
        if let Some(w) = per_page.as_mut() {
            let row = serde_json::json!({"id": s.id, "type": s.page_type, "url": s.url,
                "f1": score.2, "precision": score.0, "recall": score.1, "text": text,
                "title": article.as_ref().map(|a| &a.title), "truth_title": s.truth.title,
                "author": article.as_ref().and_then(|a| a.author.as_ref()), "truth_author": s.truth.author,
                "date": article.as_ref().and_then(|a| a.date.as_ref()), "truth_date": s.truth.publish_date,
                "language": article.as_ref().and_then(|a| a.language.as_ref()), "truth_language": s.truth.language});
            writeln!(w, "{row}")?;
        }
        overall.add(score);
        by_type.entry(s.page_type.clone()).or_default().add(score);
        if let Some(l) = s.truth.language.as_deref().filter(|l| !l.trim().is_empty()) {
            by_language
                .entry(primary_language(l))
                .or_default()
                .add(score);
        }
        let text_norm = norm(text);
        for w in &s.truth.with {
            with.add(contains_snippet(&text_norm, w));
        }
        for w in &s.truth.without {
            without.add(contains_snippet(&text_norm, w));
        }
        let a = article.as_ref();
        if let Some(a) = a {
            carried[0].add(a.site_name.is_some());
            carried[1].add(a.canonical_url.is_some());
            carried[2].add(a.image.is_some());
        }
        if let Some(t) = s.truth.title.as_deref().filter(|t| !t.trim().is_empty()) {
            let (exact, aside) = title_matches(a.map(|a| a.title.as_str()), t);
            title.add(exact);
            headline.add(aside);
        }
        if let Some(t) = s.truth.author.as_deref().filter(|t| !t.trim().is_empty()) {
            author.add(author_matches(a.and_then(|a| a.author.as_deref()), t));
        }
        if let Some(t) = s
            .truth
            .publish_date
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        {
            date.add(date_matches(a.and_then(|a| a.date.as_deref()), t));
        }
        if let Some(t) = s.truth.language.as_deref().filter(|t| !t.trim().is_empty()) {
            language.add(language_matches(a.and_then(|a| a.language.as_deref()), t));
            let guess = a.and_then(|a| gleaner_extract::detect_language(&a.text));
            detected.add(language_matches(guess.as_deref(), t));
        }
    }
    let m = overall.mean();
    let pages_per_s = samples.len() as f64 / busy.as_secs_f64().max(1e-9);
    if json {
        let v = serde_json::json!({
            "extractor": which.name(),
            "overall": m,
            "per_type": by_type.iter().map(|(k, v)| (k.clone(), v.mean())).collect::<BTreeMap<_, _>>(),
            "per_language": by_language.iter().map(|(k, v)| (k.clone(), v.mean())).collect::<BTreeMap<_, _>>(),
            "with_found": with.share(), "without_kept": without.share(),
            "empty_references": empty_reference.total, "empty_references_kept_empty": empty_reference.right,
            "title_accuracy": title.share(), "title_site_aside_accuracy": headline.share(), "carried_site_name": carried[0].share(), "carried_canonical_url": carried[1].share(), "carried_image": carried[2].share(), "author_accuracy": author.share(), "date_accuracy": date.share(),
            "language_accuracy": language.share(), "language_pages": language.total,
            "language_detected_accuracy": detected.share(),
            "pages_per_s": pages_per_s,
        });
        println!("{v}");
    } else {
        println!(
            "extractor {} on {} pages of {}",
            which.name(),
            samples.len(),
            dir.display()
        );
        if per_type {
            print_table("type", &by_type);
            if !by_language.is_empty() {
                print_table("language", &by_language);
            }
        }
        println!(
            "snippets: with found {:.3} ({}), without kept {:.3} ({})",
            with.share(),
            with.total,
            without.share(),
            without.total
        );
        if empty_reference.total > 0 {
            println!(
                "empty references: {} pages, {} extracted empty (each of the others scores 0)",
                empty_reference.total, empty_reference.right
            );
        }
        println!(
            "metadata: title {:.3} ({}; the label's site name aside {:.3}), author {:.3} ({}), date {:.3} ({}), language {:.3} ({}; from the text alone {:.3})",
            title.share(),
            title.total,
            headline.share(),
            author.share(),
            author.total,
            date.share(),
            date.total,
            language.share(),
            language.total,
            detected.share()
        );
        println!(
            "carried: site name {:.3}, canonical URL {:.3}, lead image {:.3} (of {} articles)",
            carried[0].share(),
            carried[1].share(),
            carried[2].share(),
            carried[0].total
        );
    }
    println!(
        "F1={:.4} (standard error {:.4}) P={:.4} R={:.4} pages={} pages_per_s={:.1}",
        m.f1, m.f1_se, m.precision, m.recall, m.pages, pages_per_s
    );
    Ok(())
}

/// The options of `gleaner eval`.
#[derive(Args)]
pub struct EvalCmd {
    /// A labelled set: html/ID.html.gz and ground-truth/ID.json.
    pub dir: PathBuf,
    /// Extraction method (default: extract.extractor).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(gleaner_extract::Extractor::NAMES))]
    pub extractor: Option<String>,
    /// Scores per page type too, and per language where the set labels it.
    #[arg(long)]
    pub per_type: bool,
    /// One JSON object with every figure.
    #[arg(long)]
    pub json: bool,
    /// Only the pages whose ids this file lists, one per line.
    #[arg(long, value_name = "FILE")]
    pub ids: Option<PathBuf>,
    /// Benchmark instead: pages/s of the extractor and of a bare lol_html pass, and their ratio.
    #[arg(long)]
    pub bench: bool,
    /// Write each block's features and label as JSON lines (for scripts/train-extract.py).
    #[arg(long, value_name = "FILE")]
    pub dump_features: Option<PathBuf>,
    /// Write every page's scores and extracted text as JSON lines (for error analysis).
    #[arg(long, value_name = "FILE")]
    pub per_page: Option<PathBuf>,
    /// Score the blocks the training labels call content instead (the ceiling of a block classifier).
    #[arg(long)]
    pub oracle: bool,
    #[command(flatten)]
    pub common: Common,
}

impl EvalCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("error");
        let cfg = config(&self.common)?;
        let which = extractor_of(&cfg, self.extractor.as_deref())?;
        if self.bench {
            super::eval_bench::bench(&self.dir, which, 3)?;
        } else {
            let opts = Options {
                per_type: self.per_type,
                json: self.json,
                ids: self.ids,
                dump_features: self.dump_features,
                per_page: self.per_page,
                oracle: self.oracle,
            };
            run(&self.dir, which, &opts)?;
        }
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_error_is_the_spread_of_the_mean() {
        assert_eq!(standard_error(&[]), 0.0);
        assert_eq!(standard_error(&[3.0]), 0.0);
        assert_eq!(standard_error(&[2.0, 2.0, 2.0]), 0.0);
        // Sample sd of 1, 3 is sqrt(2); over sqrt(2) pairs: 1.
        assert!((standard_error(&[1.0, 3.0]) - 1.0).abs() < 1e-12);
        // Four copies of the same pairs: about half the error (n - 1).
        let few = [0.0, 4.0, 1.0, 3.0];
        let many: Vec<f64> = few.iter().cycle().take(16).copied().collect();
        assert!((standard_error(&few) - (10.0f64 / 12.0).sqrt()).abs() < 1e-12);
        assert!((standard_error(&many) - (1.0f64 / 6.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn scores_carry_the_standard_error_of_their_mean_f1() {
        let mut s = Scores::default();
        s.add((1.0, 1.0, 1.0));
        assert_eq!(s.mean().f1_se, 0.0, "one page: no spread");
        s.add((0.0, 0.0, 0.0));
        let m = s.mean();
        // F1s 1 and 0: mean 0.5, sample sd sqrt(0.5), over sqrt(2) pages.
        assert!((m.f1 - 0.5).abs() < 1e-12);
        assert!((m.f1_se - 0.5).abs() < 1e-12, "{}", m.f1_se);
        let mut same = Scores::default();
        for _ in 0..10 {
            same.add((0.9, 0.9, 0.9));
        }
        assert!(same.mean().f1_se < 1e-6);
    }

    #[test]
    fn metric_follows_the_dataset_readme() {
        assert_eq!(
            tokens("Hello, World_2 ünïcode!"),
            vec!["hello", "world_2", "ünïcode"]
        );
        let (p, r, f) = prf("a b c d", "a b x");
        assert!((p - 0.5).abs() < 1e-9 && (r - 2.0 / 3.0).abs() < 1e-9);
        assert!((f - 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)).abs() < 1e-9);
        assert_eq!(prf("", ""), (1.0, 1.0, 1.0));
        assert_eq!(prf("x", ""), (0.0, 0.0, 0.0));
        assert_eq!(prf("", "x"), (0.0, 0.0, 0.0));
        // Multisets: a repeated word counts as often as the reference has it.
        assert_eq!(prf("a a a", "a").0, 1.0 / 3.0);
    }

    #[test]
    fn a_block_is_content_by_its_word_pairs_in_the_reference() {
        let r = Reference::new("The bridge reopened on Monday after repairs.");
        // Three of its four pairs are the reference's.
        assert_eq!(r.share_of_block("the bridge reopened on Friday"), 0.75);
        assert!(r.contains_block("the bridge reopened on Friday"));
        // Every word is, but only one pair of four: no content.
        assert_eq!(r.share_of_block("after repairs the monday bridge"), 0.25);
        assert!(!r.contains_block("after repairs the monday bridge"));
        assert_eq!(r.share_of_block("bridge"), 1.0);
        assert_eq!(r.share_of_block("ferry"), 0.0);
        assert_eq!(r.share_of_block(""), 0.0);
    }
}
