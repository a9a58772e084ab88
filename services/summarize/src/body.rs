//! A remote engine's answer read with a cap: a summary is a few hundred
//! words, so a server (or a proxy before it) that streams megabytes is
//! refused before it fills memory.

/// Most bytes of an engine's answer: a completion of thousands of tokens,
/// reasoning included and every character escaped, is well under this.
pub(crate) const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Why an answer could not be read.
#[derive(Debug, PartialEq)]
pub(crate) enum BodyError {
    /// Longer than the cap (by its Content-Length, or once read that far).
    TooLong,
    /// The connection ended or failed before the answer did.
    Cut,
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::TooLong => write!(f, "answer over {} MiB", MAX_ANSWER_BYTES >> 20),
            BodyError::Cut => write!(f, "answer cut short"),
        }
    }
}

impl std::error::Error for BodyError {}

/// The body of `resp`, at most `max` bytes.
pub(crate) async fn read_capped(
    mut resp: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, BodyError> {
    if resp.content_length().is_some_and(|n| n > max as u64) {
        return Err(BodyError::TooLong);
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|_| BodyError::Cut)? {
        if body.len() + chunk.len() > max {
            return Err(BodyError::TooLong);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The first `max` bytes of `resp`'s body as text (an error page's excerpt),
/// whatever its length.
pub(crate) async fn excerpt(mut resp: reqwest::Response, max: usize) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        body.extend_from_slice(&chunk[..chunk.len().min(max - body.len())]);
        if body.len() >= max {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}
