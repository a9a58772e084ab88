//! The error of bad usage or input, which exits with status 2: below the
//! commands and the stage registry, which both raise it.

/// Bad usage or input (a missing seed file, a URL without a scheme, an
/// unknown config key): the command exits with status 2, other errors 1.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

pub fn bad_input(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(msg.into()))
}
