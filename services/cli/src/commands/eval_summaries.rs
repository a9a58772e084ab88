//! `gleaner eval-summaries PAIRS.jsonl`: scores the configured summary
//! engine against reference summaries with ROUGE-1, ROUGE-2 and ROUGE-Lsum
//! F1 (stemmed, as Google's rouge-score computes them, through the rougers
//! crate), beside two baselines in the same run: Lead-3, and the article's
//! lead cut to the same number of words as each summary.

use crate::args::Common;
use crate::commands::eval::standard_error;
use crate::commands::{bad_input, config, init_logs};
use clap::Args;
use gleaner_core::messages::Article;
use gleaner_summarize::{SummarizeSettings, SummarizeStage, SummaryLength};
use rougers::{RougeScorer, RougeType};
use serde::Deserialize;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// One line of the pairs file.
#[derive(Deserialize)]
struct Pair {
    id: String,
    #[serde(default)]
    title: String,
    text: String,
    summary: String,
    /// ISO 639-1; detected from the text when absent, as extract does.
    #[serde(default)]
    language: Option<String>,
}

/// The options of `gleaner eval-summaries`.
#[derive(Args)]
pub struct EvalSummariesCmd {
    /// JSON lines of {id, title, text, summary[, language]}: articles and their reference summaries.
    #[arg(value_name = "PAIRS.jsonl")]
    pub pairs: PathBuf,
    /// The engine to score (extractive, http), instead of summarize.engine.
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    /// Write every summary with its scores here, one JSON object per line.
    #[arg(long, value_name = "OUT.jsonl")]
    pub dump: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

/// F1 of ROUGE-1, ROUGE-2 and ROUGE-Lsum, summed over pairs.
#[derive(Default, Clone, Copy)]
struct Sums([f64; 3], usize);

impl Sums {
    fn add(&mut self, s: [f64; 3]) {
        for (a, b) in self.0.iter_mut().zip(s) {
            *a += b;
        }
        self.1 += 1;
    }
    fn mean(&self) -> [f64; 3] {
        self.0.map(|x| 100.0 * x / self.1.max(1) as f64)
    }
}

fn rouge(scorer: &RougeScorer, reference: &str, summary: &str) -> [f64; 3] {
    let s = scorer.score(reference, summary);
    [RougeType::N(1), RougeType::N(2), RougeType::LSum]
        .map(|t| s.get(t).map_or(0.0, |x| x.fmeasure))
}

/// Sentences one per line, as ROUGE-Lsum reads them.
fn lines(text: &str) -> String {
    gleaner_text::sentences(text).join("\n")
}

/// The first `n` words of `text` (CJK characters counted one by one, as
/// summary lengths are), its sentences one per line.
fn lead_words(text: &str, n: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut taken = 0;
    for s in gleaner_text::sentences(text) {
        if taken >= n {
            break;
        }
        let w = gleaner_text::word_count(s);
        if taken + w <= n {
            out.push(s.to_string());
            taken += w;
        } else {
            // Cut inside the sentence: whole whitespace words until full.
            let mut cut = String::new();
            for word in s.split_whitespace() {
                let w = gleaner_text::word_count(word);
                if taken + w > n {
                    break;
                }
                cut.push_str(word);
                cut.push(' ');
                taken += w;
            }
            out.push(cut.trim_end().to_string());
            break;
        }
    }
    out.join("\n")
}

fn lead_sentences(text: &str, n: usize) -> String {
    gleaner_text::sentences(text)
        .into_iter()
        .take(n)
        .collect::<Vec<_>>()
        .join("\n")
}

impl EvalSummariesCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("warn");
        let cfg = config(&self.common)?;
        let mut settings: SummarizeSettings = cfg.section()?;
        if let Some(e) = &self.engine {
            settings.engine = e.clone();
            gleaner_core::config::Section::validate(&settings)
                .map_err(|e| bad_input(e.to_string()))?;
        }
        let name = self.pairs.display();
        let file =
            std::fs::File::open(&self.pairs).map_err(|e| bad_input(format!("{name}: {e}")))?;
        // Each line bounded: a file of one endless line is refused.
        let input = gleaner_core::lines::bounded_lines(
            std::io::BufReader::new(file),
            gleaner_core::lines::MAX_LINE_BYTES,
        );
        let mut pairs = Vec::new();
        for (i, line) in input.enumerate() {
            let at = |e: &dyn std::fmt::Display| bad_input(format!("{name} line {}: {e}", i + 1));
            let line = line.map_err(|e| at(&e))?;
            if line.trim().is_empty() {
                continue;
            }
            let p: Pair = serde_json::from_str(&line).map_err(|e| at(&e))?;
            pairs.push(p);
        }
        if pairs.is_empty() {
            return Err(bad_input(format!("{}: no pairs", self.pairs.display())));
        }
        let stage = SummarizeStage::from_settings(&settings)?;
        let scorer = RougeScorer::new(["rouge1", "rouge2", "rougeLsum"], true)?;
        let lengths: Vec<SummaryLength> = settings.lengths.clone();
        let mut engine = vec![Sums::default(); lengths.len()];
        let mut cut = vec![Sums::default(); lengths.len()];
        let mut words = vec![0usize; lengths.len()];
        // Each pair's gain over the lead cut, R1 and R2, for their spread.
        let mut gains = vec![[Vec::new(), Vec::new()]; lengths.len()];
        let mut lead3 = Sums::default();
        let mut dump = match &self.dump {
            Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p)?)),
            None => None,
        };
        let mut spent = 0.0;
        let mut used = std::collections::BTreeMap::<String, usize>::new();
        for p in &pairs {
            let article = Article {
                id: p.id.clone(),
                url: String::new(),
                title: p.title.clone(),
                author: None,
                date: None,
                // What the extract stage would give it.
                language: p
                    .language
                    .clone()
                    .or_else(|| gleaner_extract::detect_language(&p.text)),
                text: p.text.clone(),
                extractor: String::new(),
                fetched_at: String::new(),
                cluster: None,
                story: None,
                ..Default::default()
            };
            let started = Instant::now();
            let (summaries, by) = stage.summarize(&article).await;
            spent += started.elapsed().as_secs_f64();
            *used.entry(by).or_default() += 1;
            let reference = lines(&p.summary);
            lead3.add(rouge(&scorer, &reference, &lead_sentences(&p.text, 3)));
            for (i, l) in lengths.iter().enumerate() {
                let summary = summaries
                    .iter()
                    .find(|s| s.name == l.name)
                    .map_or("", |s| s.text.as_str());
                let n = gleaner_text::word_count(summary);
                words[i] += n;
                let ours = rouge(&scorer, &reference, &lines(summary));
                let lead = rouge(&scorer, &reference, &lead_words(&p.text, n));
                engine[i].add(ours);
                cut[i].add(lead);
                gains[i][0].push(100.0 * (ours[0] - lead[0]));
                gains[i][1].push(100.0 * (ours[1] - lead[1]));
                if let Some(out) = dump.as_mut() {
                    let line = serde_json::json!({
                        "id": p.id, "length": l.name, "summary": summary,
                        "rouge1": ours[0], "rouge2": ours[1], "rougeLsum": ours[2],
                        "lead_rouge1": lead[0], "lead_rouge2": lead[1],
                    });
                    writeln!(out, "{line}")?;
                }
            }
        }
        if let Some(mut out) = dump {
            out.flush()?;
        }
        let n = pairs.len();
        let mut report = format!(
            "{n} pairs; engine {} ({}), {:.0} articles/s\n\
             ROUGE F1 x100 (stemmed):          R1     R2  RLsum | lead cut to as many words:  R1     R2  RLsum |   dR1   dR2 | se: dR1  dR2\n",
            settings.engine,
            used.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", "),
            n as f64 / spent.max(1e-9)
        );
        for (i, l) in lengths.iter().enumerate() {
            let (a, b) = (engine[i].mean(), cut[i].mean());
            report.push_str(&format!(
                "{:<24} {:>4} words {:>6.1} {:>6.1} {:>6.1} |                          {:>6.1} {:>6.1} {:>6.1} | {:>+5.1} {:>+5.1} |     {:>4.1} {:>4.1}\n",
                l.name,
                words[i] / n,
                a[0], a[1], a[2], b[0], b[1], b[2],
                a[0] - b[0],
                a[1] - b[1],
                standard_error(&gains[i][0]),
                standard_error(&gains[i][1]),
            ));
        }
        let l3 = lead3.mean();
        report.push_str(&format!(
            "{:<24}            {:>6.1} {:>6.1} {:>6.1}\n",
            "lead-3", l3[0], l3[1], l3[2]
        ));
        report.push_str(
            "se: each gain's standard error over these pairs; \
             on other articles as many, the gain may differ by up to about twice it\n",
        );
        let _ = std::io::stdout().lock().write_all(report.as_bytes());
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rouge_is_rouge_scores_and_the_lead_is_cut_at_words() {
        // rouge-score's own example (its README): rouge1 F1 0.7058...
        let scorer = RougeScorer::new(["rouge1", "rouge2", "rougeLsum"], true).unwrap();
        let r = rouge(
            &scorer,
            "The quick brown fox jumps over the lazy dog",
            "The quick brown dog jumps on the log.",
        );
        assert!((r[0] - 0.705_882_352_941_176_5).abs() < 1e-12, "{r:?}");
        let text = "One two three four. Five six seven eight. Nine ten.";
        assert_eq!(lead_words(text, 6), "One two three four.\nFive six");
        assert_eq!(lead_words(text, 4), "One two three four.");
        assert_eq!(
            lead_sentences(text, 2),
            "One two three four.\nFive six seven eight."
        );
    }
}
