//! The end-of-run report of `gleaner run`: per seed host, pages fetched,
//! URLs failed by reason, URLs skipped by design and articles; then the most
//! frequent failure reasons, each with the flag or setting that changes it.
//! Labels and hints come from the stages' own reasons
//! (`StageSpec::reasons`). Built from the records as they pass (the bus's
//! tap), so it covers this run only.

use gleaner_core::messages::{DeadLetter, Duplicate};
use gleaner_core::outcome::Reason;
use gleaner_core::stage::Output;
use gleaner_core::Topic;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Default, Serialize)]
pub struct HostLine {
    pub pages: u64,
    pub articles: u64,
    /// Reposts of an earlier article, dropped by dedup.
    pub duplicates: u64,
    /// URLs that failed to fetch, by reason.
    pub failed: BTreeMap<String, u64>,
    /// Inputs passed over by design (disallowed by robots.txt, not an
    /// article), by reason.
    pub skipped: BTreeMap<String, u64>,
}

#[derive(Default, Serialize)]
pub struct RunReport {
    pub hosts: BTreeMap<String, HostLine>,
    /// Fetch failures by reason, over every host.
    pub failures: BTreeMap<String, u64>,
    /// Skips by reason, over every host and stage.
    pub skipped: BTreeMap<String, u64>,
    /// Every reason the stages know, for labels and hints.
    #[serde(skip)]
    reasons: Vec<Reason>,
}

/// The topics the report reads.
pub const TOPICS: [Topic; 5] = [
    Topic::PAGES,
    Topic::ARTICLES,
    Topic::DUPLICATES,
    Topic::DEAD_LETTER,
    Topic::SKIPPED,
];

impl RunReport {
    /// A report that names reasons as `reasons` say.
    pub fn new(reasons: Vec<Reason>) -> Self {
        RunReport {
            reasons,
            ..Default::default()
        }
    }

    /// Counts one record (keys are hosts on pages and articles).
    pub fn observe(&mut self, out: &Output) {
        match out.topic {
            Topic::PAGES => self.hosts.entry(out.key.clone()).or_default().pages += 1,
            Topic::ARTICLES => self.hosts.entry(out.key.clone()).or_default().articles += 1,
            Topic::DUPLICATES => {
                let url = match out.payload.typed_ref::<Duplicate>() {
                    Some(d) => d.url.clone(),
                    None => out.decode::<Duplicate>().map(|d| d.url).unwrap_or_default(),
                };
                let host = gleaner_core::util::host_of(&url);
                self.hosts.entry(host).or_default().duplicates += 1;
            }
            Topic::DEAD_LETTER | Topic::SKIPPED => {
                let Ok(dl) = out.decode::<DeadLetter>() else {
                    return;
                };
                let skipped = out.topic == Topic::SKIPPED;
                // Other stages' dead letters are counted in the summary.
                if dl.stage != "fetch" && !skipped {
                    return;
                }
                let reason = dl.reason.unwrap_or_else(|| "other".into());
                let host = dl.key.unwrap_or_else(|| "(unknown host)".into());
                let line = self.hosts.entry(host).or_default();
                let (by_host, overall) = if skipped {
                    (&mut line.skipped, &mut self.skipped)
                } else {
                    (&mut line.failed, &mut self.failures)
                };
                *by_host.entry(reason.clone()).or_default() += 1;
                *overall.entry(reason).or_default() += 1;
            }
            _ => {}
        }
    }

    /// URLs that failed to fetch in this run (a skip is not a failure).
    pub fn failed(&self) -> u64 {
        self.failures.values().sum()
    }

    /// How a reason is said, and what changes it.
    fn reason(&self, code: &str) -> (String, &'static str) {
        match self.reasons.iter().find(|r| r.code == code) {
            Some(r) => (r.label.to_string(), r.hint),
            None => (code.to_string(), "see dead-letter.jsonl"),
        }
    }

    fn counts(&self, by: &BTreeMap<String, u64>) -> String {
        if by.is_empty() {
            return "-".to_string();
        }
        by.iter()
            .map(|(r, n)| format!("{} {n}", self.reason(r).0))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The report as text (for stderr).
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.hosts.is_empty() {
            return out;
        }
        out.push_str(&format!(
            "{:<32} {:>7} {:>9} {:>11}  failed; skipped\n",
            "host", "pages", "articles", "duplicates"
        ));
        for (host, h) in &self.hosts {
            out.push_str(&format!(
                "{host:<32} {:>7} {:>9} {:>11}  {}; {}\n",
                h.pages,
                h.articles,
                h.duplicates,
                self.counts(&h.failed),
                self.counts(&h.skipped)
            ));
        }
        let mut reasons: Vec<(&String, &u64)> = self.failures.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        if !reasons.is_empty() {
            out.push_str("most frequent failures:\n");
            for (code, n) in reasons.iter().take(5) {
                let (label, hint) = self.reason(code);
                out.push_str(&format!("  {label} ({n}): {hint}\n"));
            }
        }
        if !self.skipped.is_empty() {
            out.push_str(&format!(
                "skipped by design (not failures): {}\n",
                self.counts(&self.skipped)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::stage::Input;

    fn answer(host: &str, stage: &str, reason: &str, skip: bool) -> Output {
        let input = Input {
            topic: Topic::SEEDS,
            key: Some(host.into()),
            payload: None,
            origin: None,
        };
        let mut dl = input.dead_letter(stage, "failed");
        dl.reason = Some(reason.into());
        if skip {
            Output::new(Topic::SKIPPED, stage, dl)
        } else {
            Output::dead_letter(stage, dl)
        }
    }

    #[test]
    fn counts_by_host_and_reason_with_hints() {
        let registry = crate::stages::registry();
        let mut r = RunReport::new(registry.iter().flat_map(|s| s.reasons()).copied().collect());
        r.observe(&Output::of(Topic::PAGES, "a.test", &1));
        r.observe(&answer("a.test", "fetch", "http_4xx", false));
        r.observe(&answer("b.test", "fetch", "private_address", false));
        r.observe(&answer("c.test", "fetch", "private_address", false));
        r.observe(&answer("c.test", "fetch", "robots_disallowed", true));
        r.observe(&answer("a.test", "extract", "not_article", true));
        assert_eq!(r.failed(), 3, "skips are not failures");
        assert_eq!(r.hosts["a.test"].pages, 1);
        assert_eq!(r.hosts["a.test"].skipped["not_article"], 1);
        let text = r.render();
        assert!(text.contains("HTTP 4xx 1; not an article 1"), "{text}");
        let top = text
            .lines()
            .skip_while(|l| !l.starts_with("most"))
            .nth(1)
            .unwrap();
        assert!(
            top.contains("private address refused (2): add --allow-private"),
            "{text}"
        );
        assert!(
            text.contains(
                "skipped by design (not failures): not an article 1, disallowed by robots.txt 1"
            ),
            "{text}"
        );
    }
}
