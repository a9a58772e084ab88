//! Why an input gave no output. A stage's error carries a [`Reason`]: a
//! short stable code (dead letters and metrics carry it), what people call
//! it and what changes it, and whether it is a failure or an input passed
//! over by design (a page that is not an article, a URL robots.txt
//! disallows). The runners turn a failure into a dead letter and a skip
//! into a record on the `skipped` topic, with the same fields, so the
//! dead-letter topic holds only what went wrong and nothing is lost.

use crate::config::Topic;
use crate::stage::{Input, Output};

/// Why an input gave no output. Each stage crate lists its own (see
/// `StageSpec::reasons`), so the run report shows a label and a hint
/// without matching error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reason {
    /// Stable, short: `dns`, `robots_disallowed`, `not_article`.
    pub code: &'static str,
    /// As people say it: "disallowed by robots.txt".
    pub label: &'static str,
    /// The flag or setting that changes it, or where to look.
    pub hint: &'static str,
    /// Passed over by design rather than failed.
    pub skip: bool,
}

impl Reason {
    /// A failure: the input goes to the dead-letter topic.
    pub const fn failure(code: &'static str, label: &'static str, hint: &'static str) -> Self {
        Reason {
            code,
            label,
            hint,
            skip: false,
        }
    }

    /// An input passed over by design: it goes to the `skipped` topic.
    pub const fn skip(code: &'static str, label: &'static str, hint: &'static str) -> Self {
        Reason {
            code,
            label,
            hint,
            skip: true,
        }
    }

    /// `error` with this reason, as the error a stage returns.
    pub fn wrap(self, error: impl Into<anyhow::Error>) -> anyhow::Error {
        anyhow::Error::new(Reasoned {
            reason: self,
            error: error.into(),
        })
    }

    /// `error` with this reason, made from a message.
    pub fn because(self, message: impl std::fmt::Display) -> anyhow::Error {
        self.wrap(anyhow::anyhow!("{message}"))
    }
}

/// An error with its [`Reason`].
#[derive(Debug)]
pub struct Reasoned {
    pub reason: Reason,
    pub error: anyhow::Error,
}

impl Reasoned {
    /// `error` with `reason`, as an anyhow error.
    pub fn wrap(reason: Reason, error: impl Into<anyhow::Error>) -> anyhow::Error {
        reason.wrap(error)
    }
}

impl std::fmt::Display for Reasoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

impl std::error::Error for Reasoned {}

/// The reason an error carries, if any.
pub fn reason_of(e: &anyhow::Error) -> Option<Reason> {
    e.downcast_ref::<Reasoned>().map(|r| r.reason)
}

/// The record that answers `input` when handling it failed with `e`: a
/// dead letter, or a skip record for a reason that is a skip. Counted by
/// stage and reason.
pub fn answer_error(stage: &str, input: &Input, e: &anyhow::Error) -> Output {
    let reason = reason_of(e);
    let code = reason.map_or("other", |r| r.code);
    let mut record = input.dead_letter(stage, &format!("{e:#}"));
    record.reason = reason.map(|r| r.code.to_string());
    if reason.is_some_and(|r| r.skip) {
        crate::metrics::inc(
            "gleaner_stage_skipped_total",
            &[("stage", stage), ("reason", code)],
        );
        Output::new(Topic::SKIPPED, stage, record)
    } else {
        tracing::warn!(stage, error = %format!("{e:#}"), "input sent to dead-letter");
        crate::metrics::inc(
            "gleaner_stage_failed_total",
            &[("stage", stage), ("reason", code)],
        );
        Output::dead_letter(stage, record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::DeadLetter;

    const GONE: Reason = Reason::failure("gone", "gone away", "try later");
    const LISTING: Reason = Reason::skip("listing", "a listing page", "by design");

    fn input() -> Input {
        Input {
            topic: Topic::PAGES,
            key: Some("h".into()),
            payload: Some(b"{\"id\":1}".to_vec().into()),
            origin: None,
        }
    }

    #[test]
    fn failures_are_dead_letters_and_skips_are_skip_records_with_their_code() {
        let failed = answer_error("s", &input(), &GONE.because("no answer"));
        assert_eq!(failed.topic, Topic::DEAD_LETTER);
        let dl: DeadLetter = failed.decode().unwrap();
        assert_eq!(
            (dl.reason.as_deref(), dl.error.as_str()),
            (Some("gone"), "no answer")
        );
        let skipped = answer_error("s", &input(), &LISTING.because("only links"));
        assert_eq!(skipped.topic, Topic::SKIPPED);
        let rec: DeadLetter = skipped.decode().unwrap();
        assert_eq!(rec.reason.as_deref(), Some("listing"));
        assert_eq!(rec.payload_excerpt, "{\"id\":1}");
        let plain = answer_error("s", &input(), &anyhow::anyhow!("bad"));
        assert_eq!(plain.topic, Topic::DEAD_LETTER);
        assert_eq!(plain.decode::<DeadLetter>().unwrap().reason, None);
        assert_eq!(reason_of(&LISTING.because("x")), Some(LISTING));
    }
}
