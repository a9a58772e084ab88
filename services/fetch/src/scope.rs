//! A fetch job (a URL with its crawl context) and which links it may follow:
//! depth, scope (same host, same site, seed only) and the allow and deny
//! patterns of its seed.

use crate::error::FetchError;
use gleaner_core::messages::{FrontierLink, Scope, Seed};
use gleaner_core::util::{normalise_url_stripping, registered_domain};
use url::Url;

pub(crate) struct Job {
    pub(crate) url: Url,
    pub(crate) depth: u32,
    pub(crate) max_depth: u32,
    pub(crate) scope: Scope,
    pub(crate) seed_host: String,
    pub(crate) allow: Vec<String>,
    pub(crate) deny: Vec<String>,
    pub(crate) priority: i32,
}

impl Job {
    /// Whether links on this job's page may be followed, so are worth
    /// reading (the deepest pages of a crawl are most of its pages).
    pub(crate) fn follows_links(&self) -> bool {
        self.scope != Scope::SeedOnly && self.depth < self.max_depth
    }

    pub(crate) fn from_seed(seed: Seed, url: Url, default_depth: u32) -> Self {
        Job {
            seed_host: url.host_str().unwrap_or_default().to_ascii_lowercase(),
            depth: 0,
            max_depth: seed.depth.unwrap_or(default_depth),
            scope: seed.scope.unwrap_or_default(),
            url,
            allow: seed.allow,
            deny: seed.deny,
            priority: seed.priority.unwrap_or(0),
        }
    }

    pub(crate) fn from_link(link: FrontierLink, url: Url) -> Self {
        Job {
            seed_host: link.seed_host,
            depth: link.depth,
            max_depth: link.max_depth,
            scope: link.scope,
            url,
            allow: link.allow,
            deny: link.deny,
            priority: link.priority,
        }
    }

    /// A link found on this job's page, at `depth`.
    pub(crate) fn child(&self, url: &Url, depth: u32) -> FrontierLink {
        FrontierLink {
            url: url.to_string(),
            depth,
            max_depth: self.max_depth,
            scope: self.scope,
            seed_host: self.seed_host.clone(),
            parent: self.url.to_string(),
            priority: self.priority,
            allow: self.allow.clone(),
            deny: self.deny.clone(),
            deferred: false,
        }
    }

    /// The job as a frontier link marked deferred, which the seen-set lets
    /// in again.
    pub(crate) fn to_link(&self) -> FrontierLink {
        FrontierLink {
            parent: String::new(),
            depth: self.depth,
            deferred: true,
            ..self.child(&self.url, self.depth)
        }
    }

    /// Whether a link found on this job's page may be followed.
    pub(crate) fn admits(&self, u: &Url) -> bool {
        matches!(u.scheme(), "http" | "https")
            && match self.scope {
                Scope::SameHost => u
                    .host_str()
                    .is_some_and(|h| h.eq_ignore_ascii_case(&self.seed_host)),
                Scope::SameDomain => u
                    .host_str()
                    .is_some_and(|h| registered_domain(h) == registered_domain(&self.seed_host)),
                Scope::SeedOnly => false,
            }
            && (self.allow.is_empty() || self.allow.iter().any(|p| url_matches(p, u.as_str())))
            && !self.deny.iter().any(|p| url_matches(p, u.as_str()))
    }
}

/// A normalised http(s) URL of at most `max_length` characters, or why not.
pub(crate) fn parse_http(
    raw: &str,
    strip: &[String],
    max_length: usize,
) -> Result<Url, FetchError> {
    let u = normalise_url_stripping(raw, strip)
        .map_err(|e| FetchError::BadUrl(format!("{}: {e}", first_chars(raw, 200))))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(FetchError::BadUrl(first_chars(raw, 200).to_string()));
    }
    check_length(&u, max_length)?;
    Ok(u)
}

/// A URL longer than `max` is refused (a normalised URL is ASCII, so its
/// bytes are its characters).
pub(crate) fn check_length(u: &Url, max: usize) -> Result<(), FetchError> {
    let length = u.as_str().len();
    if length > max {
        return Err(FetchError::UrlTooLong {
            start: first_chars(u.as_str(), 100).to_string(),
            length,
            max,
        });
    }
    Ok(())
}

/// At most the first `n` characters of `s`, so that a reason stays a line.
fn first_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(at, _)| &s[..at])
}

/// A URL pattern: `*` matches any run of characters and the pattern must
/// then match the whole URL; without `*` the pattern is a prefix. Same
/// matcher as robots.txt rules (a `*` pattern is one anchored with `$`).
pub fn url_matches(pattern: &str, url: &str) -> bool {
    if pattern.contains('*') {
        wildcard_matches(&format!("{pattern}$"), url)
    } else {
        url.starts_with(pattern)
    }
}

/// Matches a `--allow`/`--deny` pattern (`*` any run, `$` end) against a
/// URL prefix. This is the project's own small pattern language (the shape
/// of robots.txt rules, which texting_robots reads), so written here.
fn wildcard_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut pos = 0;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            if !path.starts_with(part) {
                return false;
            }
            pos = part.len();
        } else if i == parts.len() - 1 && anchored {
            // The last part must end the path.
            return path.len() >= pos + part.len() && path.ends_with(part);
        } else {
            match path[pos..].find(part) {
                Some(at) => pos += at + part.len(),
                None => return false,
            }
        }
    }
    !anchored || pos == path.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(scope: Scope, allow: &[&str], deny: &[&str]) -> Job {
        let seed = Seed {
            url: "https://news.example.co.uk/".into(),
            scope: Some(scope),
            allow: allow.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let url = Url::parse(&seed.url).unwrap();
        Job::from_seed(seed, url, 2)
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn scope_and_patterns_decide_which_links_are_followed() {
        let same_host = job(Scope::SameHost, &[], &[]);
        assert!(same_host.admits(&url("https://news.example.co.uk/a")));
        assert!(!same_host.admits(&url("https://sport.example.co.uk/a")));
        let same_site = job(Scope::SameDomain, &[], &["*/tag/*"]);
        assert!(same_site.admits(&url("https://sport.example.co.uk/a")));
        assert!(!same_site.admits(&url("https://other.co.uk/a")));
        assert!(!same_site.admits(&url("https://sport.example.co.uk/tag/x")));
        let allowed = job(Scope::SameHost, &["https://news.example.co.uk/2024/"], &[]);
        assert!(allowed.admits(&url("https://news.example.co.uk/2024/a")));
        assert!(!allowed.admits(&url("https://news.example.co.uk/about")));
        assert!(!job(Scope::SeedOnly, &[], &[]).admits(&url("https://news.example.co.uk/a")));
    }

    #[test]
    fn a_deferred_link_keeps_its_context() {
        let j = job(Scope::SameDomain, &["x"], &[]);
        let l = j.to_link();
        assert!(l.deferred && l.url == j.url.as_str() && l.allow == ["x"]);
        assert_eq!(l.max_depth, 2);
    }

    #[test]
    fn registered_domains_and_bad_urls() {
        assert_eq!(registered_domain("a.b.bbc.co.uk"), "bbc.co.uk");
        assert_eq!(registered_domain("www.example.com."), "example.com");
        assert_eq!(registered_domain("10.0.0.1"), "10.0.0.1");
        assert_eq!(registered_domain("a.github.io"), "a.github.io");
        assert_ne!(
            registered_domain("a.github.io"),
            registered_domain("b.github.io")
        );
        // Wildcard and exception rules: *.kawasaki.jp, !city.kawasaki.jp.
        assert_eq!(registered_domain("w.x.y.kawasaki.jp"), "x.y.kawasaki.jp");
        assert_eq!(
            registered_domain("www.city.kawasaki.jp"),
            "city.kawasaki.jp"
        );
        assert_eq!(registered_domain("www.example.com.au"), "example.com.au");
        assert_eq!(registered_domain("localhost"), "localhost");
        assert!(parse_http("ftp://x.org/", &[], 2083).is_err());
        assert!(parse_http("not a url", &[], 2083).is_err());
        assert!(
            parse_http("http://x.org/?utm_source=a", &["utm_*".into()], 2083)
                .is_ok_and(|u| u.query().is_none())
        );
    }

    #[test]
    fn a_url_longer_than_the_cap_is_refused_with_its_length() {
        let at_cap = format!("http://x.org/{}", "a".repeat(2083 - 13));
        assert_eq!(at_cap.len(), 2083);
        assert!(parse_http(&at_cap, &[], 2083).is_ok());
        let trap = format!("{at_cap}/");
        let said = parse_http(&trap, &[], 2083).unwrap_err().to_string();
        assert!(
            said.starts_with(
                "URL of 2084 characters, longer than fetch.max_url_length (2083): http://x.org/aaa"
            ),
            "{said}"
        );
        assert!(said.len() < 200, "{said}");
        // Measured after normalisation: a space is three characters.
        let spaced = format!("http://x.org/{}", " a".repeat(600));
        assert!(matches!(
            parse_http(&spaced, &[], 2083),
            Err(FetchError::UrlTooLong { length: 2413, .. })
        ));
        // A bad URL's reason is cut too, and never splits a character.
        let bad = format!("http://[::1/{}", "é".repeat(5000));
        assert!(parse_http(&bad, &[], 2083).unwrap_err().to_string().len() < 600);
    }
}
