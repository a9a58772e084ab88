//! Why a URL was not fetched: each error carries its [`Reason`] (a stable
//! code for dead letters and metrics, a label and a hint for the run
//! report); a URL robots.txt disallows is a skip, not a failure.

use gleaner_core::outcome::Reason;

/// Every reason a URL may not be fetched.
pub mod reasons {
    use gleaner_core::outcome::Reason;

    pub const BAD_URL: Reason = Reason::failure(
        "bad_url",
        "bad URL",
        "only http(s) URLs are fetched, of at most fetch.max_url_length characters",
    );
    pub const PRIVATE_ADDRESS: Reason = Reason::failure(
        "private_address",
        "private address refused",
        "add --allow-private (or fetch.allow_private) to fetch private, loopback and reserved addresses",
    );
    pub const ROBOTS_DISALLOWED: Reason = Reason::skip(
        "robots_disallowed",
        "disallowed by robots.txt",
        "the site's robots.txt forbids it; fetch.respect_robots = false ignores robots.txt (only for sites you own)",
    );
    pub const ROBOTS_UNAVAILABLE: Reason = Reason::failure(
        "robots_unavailable",
        "robots.txt unavailable",
        "robots.txt answered 5xx, so the host is not crawled (RFC 9309); try later, or raise fetch.max_retries",
    );
    pub const HOST_PAUSED: Reason = Reason::failure(
        "host_paused",
        "host paused",
        "paused after errors or block pages (fetch.block_*, fetch.pause_secs); --follow waits the pause out",
    );
    pub const CHALLENGE: Reason = Reason::failure(
        "challenge",
        "block page",
        "the site refuses crawlers; slow down with --delay or leave it",
    );
    pub const REDIRECT: Reason = Reason::failure(
        "redirect",
        "redirect not followed",
        "see fetch.max_redirects, or seed the redirect's target",
    );
    pub const HTTP_403: Reason = Reason::failure(
        "http_403",
        "HTTP 403",
        "the site refuses crawlers; slow down with --delay or leave it",
    );
    pub const HTTP_429: Reason = Reason::failure(
        "http_429",
        "HTTP 429",
        "the host asks to slow down: raise --delay (fetch.per_host_delay_ms)",
    );
    pub const HTTP_4XX: Reason = Reason::failure(
        "http_4xx",
        "HTTP 4xx",
        "missing pages (404, 410, ...); see dead-letter.jsonl for the URLs",
    );
    pub const HTTP_5XX: Reason = Reason::failure(
        "http_5xx",
        "HTTP 5xx",
        "server errors, retried fetch.max_retries times; try later",
    );
    pub const NOT_HTML: Reason = Reason::failure(
        "not_html",
        "not HTML",
        "only HTML pages, sitemaps and feeds are fetched",
    );
    pub const DNS: Reason = Reason::failure(
        "dns",
        "DNS lookup failed",
        "check the host name; DNS has no answer for it",
    );
    pub const CONNECTION_REFUSED: Reason = Reason::failure(
        "connection_refused",
        "connection refused",
        "nothing listens at that address and port: is the server up?",
    );
    pub const CONNECT: Reason = Reason::failure(
        "connect",
        "connection failed",
        "is the server up and reachable? (fetch.connect_timeout_ms)",
    );
    pub const TIMEOUT: Reason = Reason::failure(
        "timeout",
        "timed out",
        "the server is slow: raise fetch.total_timeout_ms",
    );
    pub const BAD_BODY: Reason = Reason::failure(
        "bad_body",
        "bad body",
        "the body could not be read (cut off, or a broken encoding); see dead-letter.jsonl",
    );
    pub const REQUEST: Reason = Reason::failure(
        "request",
        "request failed",
        "see dead-letter.jsonl for the error",
    );

    /// All of them, for the run report.
    pub const ALL: &[Reason] = &[
        BAD_URL,
        PRIVATE_ADDRESS,
        ROBOTS_DISALLOWED,
        ROBOTS_UNAVAILABLE,
        HOST_PAUSED,
        CHALLENGE,
        REDIRECT,
        HTTP_403,
        HTTP_429,
        HTTP_4XX,
        HTTP_5XX,
        NOT_HTML,
        DNS,
        CONNECTION_REFUSED,
        CONNECT,
        TIMEOUT,
        BAD_BODY,
        REQUEST,
    ];
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("not an http(s) URL: {0}")]
    BadUrl(String),
    #[error("URL of {length} characters, longer than fetch.max_url_length ({max}): {start}...")]
    UrlTooLong {
        /// The URL's first characters, enough to recognise it.
        start: String,
        length: usize,
        max: usize,
    },
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
        /// DNS, CONNECTION_REFUSED, CONNECT, TIMEOUT, PRIVATE_ADDRESS or
        /// REQUEST.
        reason: Reason,
    },
}

impl FetchError {
    /// A failed request, with what kind of failure it was.
    pub(crate) fn request(url: &url::Url, e: &reqwest::Error) -> Self {
        let why = error_chain(e);
        let chain = || std::iter::successors(Some(e as &dyn std::error::Error), |c| c.source());
        let refused = chain().any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        });
        let reason = if chain().any(|c| c.is::<PrivateOnly>()) {
            reasons::PRIVATE_ADDRESS
        } else if why.contains("dns error") || why.contains("failed to lookup address") {
            reasons::DNS
        } else if e.is_timeout() {
            reasons::TIMEOUT
        } else if refused || why.contains("Connection refused") {
            reasons::CONNECTION_REFUSED
        } else if e.is_connect() {
            reasons::CONNECT
        } else {
            reasons::REQUEST
        };
        FetchError::Request {
            url: url.to_string(),
            why,
            reason,
        }
    }

    /// Why, as the dead letter and the run report say it.
    pub fn reason(&self) -> Reason {
        use reasons::*;
        match self {
            FetchError::BadUrl(_) | FetchError::UrlTooLong { .. } => BAD_URL,
            FetchError::Private(_) => PRIVATE_ADDRESS,
            FetchError::Robots(_) => ROBOTS_DISALLOWED,
            FetchError::RobotsUnavailable { .. } => ROBOTS_UNAVAILABLE,
            FetchError::HostPaused { .. } => HOST_PAUSED,
            FetchError::Challenge(_) => CHALLENGE,
            FetchError::Redirect { .. } => REDIRECT,
            FetchError::Status { status: 429, .. } => HTTP_429,
            FetchError::Status { status: 403, .. } => HTTP_403,
            FetchError::Status { status, .. } if *status >= 500 => HTTP_5XX,
            FetchError::Status { .. } => HTTP_4XX,
            FetchError::NotHtml { .. } => NOT_HTML,
            FetchError::Request { reason, .. } => *reason,
        }
    }
}

/// A name that resolves only to addresses that may not be fetched; found
/// again in the request's error chain to name the failure.
#[derive(Debug)]
pub(crate) struct PrivateOnly(pub(crate) String);

impl std::fmt::Display for PrivateOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} resolves only to private or reserved addresses (--allow-private or fetch.allow_private to fetch it)",
            self.0
        )
    }
}

impl std::error::Error for PrivateOnly {}

/// An error with its causes, one line.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}
