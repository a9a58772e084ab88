//! Why an input gave no output. A stage's error carries a [`Reason`]: a
//! short stable code (dead letters and metrics carry it), what people call
//! it and what changes it, and whether it is a failure or an input passed
//! over by design (a page that is not an article, a URL robots.txt
//! disallows). The runners turn a failure into a dead letter and a skip
//! into a record on the `skipped` topic, with the same fields
//! (`stage::answer_error`), so the dead-letter topic holds only what went
//! wrong and nothing is lost.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_carries_its_reason() {
        const LISTING: Reason = Reason::skip("listing", "a listing page", "by design");
        assert_eq!(reason_of(&LISTING.because("x")), Some(LISTING));
        assert_eq!(format!("{}", LISTING.because("only links")), "only links");
        assert_eq!(reason_of(&anyhow::anyhow!("plain")), None);
    }
}
