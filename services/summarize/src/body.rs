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
pub(crate) async fn read_capped(resp: reqwest::Response, max: usize) -> Result<Vec<u8>, BodyError> {
    if resp.content_length().is_some_and(|n| n > max as u64) {
        return Err(BodyError::TooLong);
    }
    match read_up_to(resp, max).await {
        Ok((body, false)) => Ok(body),
        Ok((_, true)) => Err(BodyError::TooLong),
        Err(_) => Err(BodyError::Cut),
    }
}

/// The first `max` bytes of `resp`'s body as text (an error page's excerpt),
/// whatever its length.
pub(crate) async fn excerpt(resp: reqwest::Response, max: usize) -> String {
    read_up_to(resp, max)
        .await
        .map(|(body, _)| String::from_utf8_lossy(&body).into_owned())
        .unwrap_or_default()
}

/// At most `max` bytes of `resp`'s body, and whether it went on.
async fn read_up_to(
    mut resp: reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}
