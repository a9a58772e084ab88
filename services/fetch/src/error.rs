//! Why a URL was not fetched: each reason is a dead-letter message and a
//! metric label.

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("not an http(s) URL: {0}")]
    BadUrl(String),
    #[error("refused: {0} is a private or reserved address (--allow-private or fetch.allow_private to fetch it)")]
    Private(String),
    #[error("disallowed by robots.txt: {0}")]
    Robots(String),
    #[error("robots.txt of {host} unavailable ({why}); not crawling the host")]
    RobotsUnavailable { host: String, why: String },
    #[error("host {host} is paused for {secs} s more ({why}); not fetched")]
    HostPaused {
        host: String,
        secs: u64,
        why: String,
    },
    #[error("challenge page instead of content at {0}")]
    Challenge(String),
    #[error("HTTP {status} for {url}")]
    Status { status: u16, url: String },
    #[error("not HTML ({content_type}) at {url}")]
    NotHtml { content_type: String, url: String },
    #[error("redirect of {url} not followed: {why}")]
    Redirect { url: String, why: String },
    #[error("request to {url} failed: {why}")]
    Request {
        url: String,
        why: String,
        /// dns, connect, timeout, private_address or request.
        kind: &'static str,
    },
}

impl FetchError {
    /// A failed request, with what kind of failure it was.
    pub(crate) fn request(url: &url::Url, e: &reqwest::Error) -> Self {
        let why = crate::client::error_chain(e);
        let mut chain = std::iter::successors(Some(e as &dyn std::error::Error), |c| c.source());
        let kind = if chain.any(|c| c.is::<crate::address::PrivateOnly>()) {
            "private_address"
        } else if why.contains("dns error") || why.contains("failed to lookup address") {
            "dns"
        } else if e.is_timeout() {
            "timeout"
        } else if e.is_connect() {
            "connect"
        } else {
            "request"
        };
        FetchError::Request {
            url: url.to_string(),
            why,
            kind,
        }
    }

    /// A short name for metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::BadUrl(_) => "bad_url",
            FetchError::Private(_) => "private_address",
            FetchError::Robots(_) => "robots_disallowed",
            FetchError::RobotsUnavailable { .. } => "robots_unavailable",
            FetchError::HostPaused { .. } => "host_paused",
            FetchError::Challenge(_) => "challenge",
            FetchError::Redirect { .. } => "redirect",
            FetchError::Status { status: 429, .. } => "http_429",
            FetchError::Status { status: 403, .. } => "http_403",
            FetchError::Status { status, .. } if *status >= 500 => "http_5xx",
            FetchError::Status { .. } => "http_4xx",
            FetchError::NotHtml { .. } => "not_html",
            FetchError::Request { kind, .. } => kind,
        }
    }
}
