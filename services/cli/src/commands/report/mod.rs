//! `gleaner report --data DIR`: the crawl report, one self-contained HTML
//! file with inline SVG charts, from what runs left in DIR: pages and
//! articles over time, answers per host, fetch latency, the extractor
//! used, duplicate clusters, the top terms, and the word rank / frequency
//! plot on log-log axes with the fitted Zipf exponent.

use crate::args::Common;
use crate::commands::{config, data_dir};
use clap::Args;
use std::process::ExitCode;
mod stats;
mod svg;

use crate::commands::run::fetch_log::{self, Fetch};
use gleaner_core::messages::{DeadLetter, Duplicate};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use svg::esc;

/// The file `gleaner serve` links to.
pub const FILE: &str = "report.html";

/// Each line of a JSON-lines file as `T`; a missing file is empty and a bad
/// line is skipped (a run may have been killed mid-line).
fn each_line<T: serde::de::DeserializeOwned>(path: &Path, mut f: impl FnMut(T)) {
    let Ok(file) = std::fs::File::open(path) else {
        return;
    };
    for line in std::io::BufReader::new(file).lines().map_while(Result::ok) {
        if let Ok(v) = serde_json::from_str::<T>(&line) {
            f(v);
        }
    }
}

fn millis(rfc3339: &str) -> Option<i64> {
    rfc3339
        .parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

#[derive(serde::Deserialize)]
struct ArticleLine {
    #[serde(default)]
    extractor: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    fetched_at: String,
    #[serde(default)]
    language: Option<String>,
}

/// Whether a term says what a crawl is about: not one of its language's
/// stop words (gleaner-text's own few let "not", "can", "about" and
/// "de" top a crawl's list), nor the stray letter a contraction leaves
/// ("it's" gives "s", "don't" "t"), nor a number.
fn is_topic_term(term: &str) -> bool {
    let cjk = term.chars().any(gleaner_text::is_cjk);
    cjk || (term.chars().nth(1).is_some() && !term.chars().all(|c| c.is_ascii_digit()))
}

/// What the report shows, gathered in one pass over each file.
#[derive(Default)]
struct Gathered {
    fetch_times: Vec<i64>,
    article_times: Vec<i64>,
    /// host -> answer ("200", "304", or a failure reason) -> count
    hosts: BTreeMap<String, BTreeMap<String, u64>>,
    latency_ms: Vec<u64>,
    extractors: BTreeMap<String, u64>,
    terms: BTreeMap<String, u64>,
    words: HashMap<String, u64>,
    clusters: BTreeMap<String, Vec<String>>,
    articles: u64,
    /// URLs fetch failed on (dead-letter.jsonl).
    failed: u64,
    /// URLs fetch passed over by design (robots.txt; skipped.jsonl).
    passed_over: u64,
}

fn gather(data: &Path) -> Gathered {
    let mut g = Gathered::default();
    each_line(&data.join(fetch_log::FILE), |f: Fetch| {
        g.fetch_times.extend(millis(&f.fetched_at));
        g.latency_ms.extend(f.ms);
        *g.hosts
            .entry(f.host)
            .or_default()
            .entry(f.status.to_string())
            .or_default() += 1;
    });
    // What fetch failed on or passed over (robots.txt) is an answer too.
    for file in ["dead-letter.jsonl", "skipped.jsonl"] {
        each_line(&data.join(file), |d: DeadLetter| {
            if d.stage == "fetch" {
                match file {
                    "dead-letter.jsonl" => g.failed += 1,
                    _ => g.passed_over += 1,
                }
                let host = d.key.unwrap_or_else(|| "(unknown host)".into());
                let reason = d.reason.unwrap_or_else(|| "other".into());
                *g.hosts.entry(host).or_default().entry(reason).or_default() += 1;
            }
        });
    }
    let mut term_counts: HashMap<String, u64> = HashMap::new();
    each_line(&data.join("articles.jsonl"), |a: ArticleLine| {
        g.articles += 1;
        g.article_times.extend(millis(&a.fetched_at));
        *g.extractors.entry(a.extractor).or_default() += 1;
        let stop = gleaner_text::stop_list::stop_list(a.language.as_deref());
        for t in gleaner_text::terms_except(&a.text, |w| stop.contains(w)) {
            if is_topic_term(&t) {
                *term_counts.entry(t).or_default() += 1;
            }
        }
        for w in gleaner_text::words(&a.text) {
            *g.words.entry(w.to_lowercase()).or_default() += 1;
        }
    });
    g.terms = term_counts.into_iter().collect();
    each_line(&data.join("duplicates.jsonl"), |d: Duplicate| {
        g.clusters.entry(d.original_url).or_default().push(d.url);
    });
    g
}

/// Writes the report for `data` to `output` (default DATA/report.html).
pub fn write(data: &Path, output: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if !data.is_dir() {
        return Err(crate::commands::bad_input(format!(
            "no data directory {} (give --data DIR of a `gleaner run`)",
            data.display()
        )));
    }
    let html = render(data, &gather(data));
    let out = output.unwrap_or_else(|| data.join(FILE));
    std::fs::write(&out, html)?;
    Ok(out)
}

fn render(data: &Path, g: &Gathered) -> String {
    let mut h = String::new();
    let duplicates: usize = g.clusters.values().map(Vec::len).sum();
    let _ = write!(
        h,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>gleaner crawl report</title>\
         <style>body{{font-family:sans-serif;max-width:780px;margin:2em auto;color:#222}}\
         table{{border-collapse:collapse;font-size:13px}}td,th{{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}}\
         td:first-child,th:first-child{{text-align:left}}h2{{margin-top:2em}}</style></head><body>\
         <h1>Crawl report</h1><p>{}: <b>{}</b> pages fetched, <b>{}</b> URLs failed, <b>{}</b> passed over by robots.txt, <b>{}</b> articles, <b>{duplicates}</b> duplicates.</p>",
        esc(&data.display().to_string()),
        g.fetch_times.len(),
        g.failed,
        g.passed_over,
        g.articles
    );
    // Over time.
    let start = g
        .fetch_times
        .iter()
        .chain(&g.article_times)
        .copied()
        .min()
        .unwrap_or(0);
    h.push_str("<h2>Pages and articles over time</h2>");
    h.push_str(&svg::lines(
        &[
            (
                "pages".into(),
                stats::cumulative(start, g.fetch_times.clone()),
            ),
            (
                "articles".into(),
                stats::cumulative(start, g.article_times.clone()),
            ),
        ],
        "s",
    ));
    // Per host.
    let mut answers: Vec<String> = g.hosts.values().flat_map(|m| m.keys().cloned()).collect();
    answers.sort_by_key(|a| (a.parse::<u16>().is_err(), a.clone()));
    answers.dedup();
    h.push_str("<h2>Answers per host</h2><table><tr><th>host</th>");
    for a in &answers {
        let _ = write!(h, "<th>{}</th>", esc(a));
    }
    h.push_str("</tr>");
    let mut rows = Vec::new();
    for (host, m) in &g.hosts {
        let _ = write!(h, "<tr><td>{}</td>", esc(host));
        for a in &answers {
            let _ = write!(h, "<td>{}</td>", m.get(a).copied().unwrap_or(0));
        }
        h.push_str("</tr>");
        rows.push((
            host.clone(),
            answers
                .iter()
                .map(|a| m.get(a).copied().unwrap_or(0) as f64)
                .collect(),
        ));
    }
    h.push_str("</table>");
    h.push_str(&svg::stacked_bars(&rows, &answers));
    // Latency.
    if !g.latency_ms.is_empty() {
        h.push_str("<h2>Fetch latency</h2><p>From sending the request to the end of the body.</p>");
        h.push_str(&svg::bars(&stats::latency_histogram(
            g.latency_ms.iter().copied(),
        )));
    }
    // Extractors.
    h.push_str("<h2>Extractor used</h2>");
    let ex: Vec<(String, f64)> = stats::top(&g.extractors, 10)
        .into_iter()
        .map(|(k, n)| (k, n as f64))
        .collect();
    h.push_str(&svg::bars(&ex));
    // Duplicates.
    let _ = write!(h, "<h2>Duplicate clusters</h2><p>{} with reposts.</p><table><tr><th>original</th><th>copies</th></tr>", match g.clusters.len() {
        1 => "1 original".to_string(),
        n => format!("{n} originals"),
    });
    let mut clusters: Vec<(&String, &Vec<String>)> = g.clusters.iter().collect();
    clusters.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    for (original, copies) in clusters.iter().take(20) {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td></tr>",
            esc(original),
            copies.len()
        );
    }
    h.push_str("</table>");
    // Terms.
    h.push_str(
        "<h2>Top terms</h2><p>Stemmed, without each article's language's stop words, \
         single letters and numbers.</p>",
    );
    let terms: Vec<(String, f64)> = stats::top(&g.terms, 25)
        .into_iter()
        .map(|(k, n)| (k, n as f64))
        .collect();
    h.push_str(&svg::bars(&terms));
    // Zipf.
    let ranked = stats::rank_frequency(&g.words);
    h.push_str("<h2>Word rank and frequency</h2>");
    match stats::zipf_fit(&ranked, 1000) {
        Some((a, s)) => {
            let total: u64 = g.words.values().sum();
            let _ = write!(
                h,
                "<p>Zipf exponent <b>s = {s:.2}</b> (least squares of log frequency on log rank over the top {} ranks; {total} words, {} distinct).</p>",
                ranked.len().min(1000),
                g.words.len()
            );
            h.push_str(&svg::loglog(&stats::thinned(&ranked), a, s));
        }
        None => h.push_str("<p>Too few words for a fit.</p>"),
    }
    h.push_str("</body></html>\n");
    h
}

/// The options of `gleaner report`.
#[derive(Args)]
pub struct ReportCmd {
    /// Data directory (default: run.data_dir, "gleaner-data").
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Where to write the report (default: DATA/report.html).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

impl ReportCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let cfg = config(&self.common)?;
        let data = data_dir(&cfg, self.data);
        let written = write(&data, self.output)?;
        println!("report written to {}", written.display());
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_terms_are_the_crawls_topics() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            r#"{"text":"It's not the bridge that can't open. The bridge can open in 2026.","language":"en"}"#,
            r#"{"text":"Le pont de la ville est ouvert, dit le maire de la ville.","language":"fr"}"#,
            r#"{"text":"桥","language":"zh"}"#,
        ];
        std::fs::write(dir.path().join("articles.jsonl"), lines.join("\n")).unwrap();
        let g = gather(dir.path());
        let mut terms: Vec<&str> = g.terms.keys().map(String::as_str).collect();
        terms.sort_unstable();
        assert_eq!(
            terms,
            ["bridg", "dit", "mair", "open", "ouvert", "pont", "vill", "桥"]
        );
        assert_eq!(g.terms["bridg"], 2);
        // Every word still counts towards the rank / frequency plot.
        assert_eq!(g.words["the"], 2);
    }
}
