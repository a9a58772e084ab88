//! robots.txt (RFC 9309) by texting_robots: groups by user agent (a named
//! group replaces `*`), allow/disallow with `*` and `$`, the longest match
//! wins (allow on a tie), percent-encoding and non-ASCII paths compared in
//! one form, a byte-order mark, any line ending, `Crawl-delay` and
//! `Sitemap:` lines.

use std::sync::Arc;
use texting_robots::Robot;

/// The rules of robots.txt that apply to one user agent.
#[derive(Debug, Clone, Default)]
pub struct AgentRules {
    robot: Option<Arc<Robot>>,
    deny_all: bool,
    /// Seconds between requests the site asks for.
    pub crawl_delay: Option<f64>,
}

impl AgentRules {
    /// Allows everything (no robots.txt, or a 4xx for it).
    pub fn allow_all() -> Self {
        AgentRules::default()
    }

    /// Disallows everything but robots.txt itself (RFC 9309 for an
    /// unreachable robots.txt).
    pub fn disallow_all() -> Self {
        AgentRules {
            deny_all: true,
            ..AgentRules::default()
        }
    }

    /// The rules in `body` for the product token `agent` (such as
    /// `gleaner`), and the sitemaps the file lists. A file the parser
    /// cannot read at all allows everything, as a missing one does.
    pub fn parse(body: &[u8], agent: &str) -> (Self, Vec<String>) {
        match Robot::new(agent, body) {
            Ok(robot) => {
                let rules = AgentRules {
                    crawl_delay: robot
                        .delay
                        .map(f64::from)
                        .filter(|d| d.is_finite() && *d >= 0.0),
                    deny_all: false,
                    robot: None,
                };
                let sitemaps = robot.sitemaps.clone();
                (
                    AgentRules {
                        robot: Some(Arc::new(robot)),
                        ..rules
                    },
                    sitemaps,
                )
            }
            Err(e) => {
                tracing::warn!(error = %e, "robots.txt unreadable; treated as absent");
                (AgentRules::allow_all(), Vec::new())
            }
        }
    }

    /// Whether `path` (path and query, starting with `/`) may be fetched.
    pub fn allowed(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        if self.deny_all {
            return false;
        }
        self.robot.as_ref().is_none_or(|r| r.allowed(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> AgentRules {
        AgentRules::parse(text.as_bytes(), "gleaner").0
    }

    #[test]
    fn groups_longest_match_and_wildcards() {
        let text = "User-agent: *\nDisallow: /private\nAllow: /private/public\n\n\
             User-agent: Gleaner\nUser-agent: other\nDisallow: /*.pdf$\nDisallow: /tmp/\nAllow: /tmp/ok\nCrawl-delay: 2\n\
             Sitemap: https://x.test/sitemap.xml\n";
        let (star, _) = AgentRules::parse(text.as_bytes(), "somebot");
        assert!(!star.allowed("/private/x"));
        assert!(star.allowed("/private/public/x"));
        assert!(star.allowed("/file.pdf"));
        let (g, sitemaps) = AgentRules::parse(text.as_bytes(), "gleaner");
        assert!(g.allowed("/private/x"), "a named group replaces *");
        assert!(!g.allowed("/docs/a.pdf"));
        assert!(g.allowed("/docs/a.pdf?x=1"));
        assert!(!g.allowed("/tmp/x"));
        assert!(g.allowed("/tmp/ok/1"));
        assert_eq!(g.crawl_delay, Some(2.0));
        assert_eq!(sitemaps, vec!["https://x.test/sitemap.xml"]);
        assert!(AgentRules::disallow_all().allowed("/robots.txt"));
        assert!(!AgentRules::disallow_all().allowed("/"));
        assert!(AgentRules::allow_all().allowed("/anything"));
    }

    #[test]
    fn byte_order_mark_line_ends_and_encodings() {
        // A UTF-8 byte-order mark does not hide the first group.
        assert!(!rules("\u{feff}User-agent: *\nDisallow: /a\n").allowed("/a/1"));
        // CR-only line ends are line ends.
        let cr = rules("User-agent: *\rDisallow: /a\rAllow: /a/b\r");
        assert!(!cr.allowed("/a/x"));
        assert!(cr.allowed("/a/b"));
        // Non-ASCII rules match the percent-encoded paths URLs carry, and
        // encoded rules match too.
        assert!(!rules("User-agent: *\nDisallow: /café\n").allowed("/caf%C3%A9/menu"));
        assert!(!rules("User-agent: *\nDisallow: /caf%C3%A9\n").allowed("/caf%C3%A9/menu"));
        assert!(rules("User-agent: *\nDisallow: /café\n").allowed("/cafe/menu"));
    }
}
