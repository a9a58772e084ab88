//! `gleaner run`'s progress: on a terminal a live line (indicatif) with
//! each stage's count, pages per second and what is queued; otherwise a
//! plain line every few seconds, when something changed (log files stay
//! readable).

use gleaner_core::memory::Counts;
use gleaner_core::Topic;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::{Duration, Instant};

/// How often a plain (not a terminal) progress line may be written.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

pub struct Progress {
    bar: Option<ProgressBar>,
    last_line: String,
    last_plain: Option<Instant>,
    /// Pages at the previous update, for the rate.
    rate_from: (Instant, u64),
}

impl Progress {
    pub fn new(tty: bool) -> Self {
        let bar = tty.then(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed:>4} {wide_msg}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Progress {
            bar,
            last_line: String::new(),
            last_plain: None,
            rate_from: (Instant::now(), 0),
        }
    }

    /// The line for these counts; shown now on a terminal, else at most
    /// every few seconds.
    pub fn update(&mut self, c: &Counts, in_flight: i64) {
        let n = |t: Topic| c.get(&t).copied().unwrap_or(0);
        let pages = n(Topic::PAGES);
        let (since, before) = self.rate_from;
        let secs = since.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            (pages.saturating_sub(before)) as f64 / secs
        } else {
            0.0
        };
        self.rate_from = (Instant::now(), pages);
        let counts = format!(
            "{} articles | {} duplicates | {} summarized | {} skipped | {} dead letters | {in_flight} queued",
            n(Topic::ARTICLES),
            n(Topic::DUPLICATES),
            n(Topic::SUMMARIZED),
            n(Topic::SKIPPED),
            n(Topic::DEAD_LETTER),
        );
        let line = format!("fetched {pages} pages ({rate:.1}/s) | {counts}");
        // The rate alone changing is no news.
        self.show(line, format!("{pages} {counts}"));
    }

    /// Any other line (the stop countdown).
    pub fn say(&mut self, line: String) {
        self.show(line.clone(), line);
    }

    fn show(&mut self, line: String, key: String) {
        match &self.bar {
            Some(bar) => bar.set_message(line),
            None => {
                let due = self.last_plain.is_none_or(|t| t.elapsed() >= PLAIN_EVERY);
                if due && key != self.last_line {
                    eprintln!("{line}");
                    self.last_plain = Some(Instant::now());
                    self.last_line = key;
                }
            }
        }
    }

    /// A line printed above the live one.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Clears the live line before the summary.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_are_spaced_and_only_on_change() {
        let mut p = Progress::new(false);
        let mut c = Counts::new();
        c.insert(Topic::PAGES, 3);
        p.update(&c, 1);
        let first = p.last_line.clone();
        assert!(first.starts_with("3 0 articles"), "{first}");
        c.insert(Topic::PAGES, 4);
        p.update(&c, 1);
        assert_eq!(p.last_line, first, "not again within five seconds");
    }
}
