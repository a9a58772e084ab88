//! robots.txt (RFC 9309): groups by user agent, allow/disallow with `*` and
//! `$`, the longest match wins (allow on a tie), `Crawl-delay`, `Sitemap:`.

#[derive(Debug, Clone, Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<(bool, String)>,
    crawl_delay: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub struct Robots {
    groups: Vec<Group>,
    pub sitemaps: Vec<String>,
}

/// The rules that apply to one user agent.
#[derive(Debug, Clone, Default)]
pub struct AgentRules {
    rules: Vec<(bool, String)>,
    pub crawl_delay: Option<f64>,
}

impl Robots {
    /// Allows everything (no robots.txt, or a 4xx for it).
    pub fn allow_all() -> Self {
        Robots::default()
    }

    /// Disallows everything (RFC 9309 for an unreachable robots.txt).
    pub fn disallow_all() -> Self {
        Robots {
            groups: vec![Group {
                agents: vec!["*".into()],
                rules: vec![(false, "/".into())],
                crawl_delay: None,
            }],
            sitemaps: vec![],
        }
    }

    pub fn parse(text: &str) -> Self {
        let mut robots = Robots::default();
        let mut cur: Option<Group> = None;
        let mut last_was_agent = false;
        // RFC 9309 asks parsers to read at least 500 KiB.
        for line in text.lines().take(100_000) {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" => {
                    if !last_was_agent {
                        if let Some(g) = cur.take() {
                            robots.groups.push(g);
                        }
                        cur = Some(Group::default());
                    }
                    if let Some(g) = cur.as_mut() {
                        g.agents.push(value.to_ascii_lowercase());
                    }
                    last_was_agent = true;
                }
                "allow" | "disallow" => {
                    last_was_agent = false;
                    if let Some(g) = cur.as_mut() {
                        // An empty Disallow allows everything: no rule.
                        if !value.is_empty() {
                            g.rules.push((key == "allow", value.to_string()));
                        }
                    }
                }
                "crawl-delay" => {
                    last_was_agent = false;
                    if let Some(g) = cur.as_mut() {
                        g.crawl_delay = value
                            .parse::<f64>()
                            .ok()
                            .filter(|d| d.is_finite() && *d >= 0.0);
                    }
                }
                "sitemap" => robots.sitemaps.push(value.to_string()),
                _ => last_was_agent = false,
            }
        }
        if let Some(g) = cur {
            robots.groups.push(g);
        }
        robots
    }

    /// The rules for a product token such as `gleaner`: every group naming
    /// it (case-insensitively), else the `*` groups.
    pub fn for_agent(&self, token: &str) -> AgentRules {
        let token = token.to_ascii_lowercase();
        let pick = |want: &dyn Fn(&str) -> bool| {
            let mut r = AgentRules::default();
            for g in self
                .groups
                .iter()
                .filter(|g| g.agents.iter().any(|a| want(a)))
            {
                r.rules.extend(g.rules.iter().cloned());
                r.crawl_delay = r.crawl_delay.or(g.crawl_delay);
            }
            r
        };
        let named = pick(&|a: &str| a == token);
        if !named.rules.is_empty()
            || named.crawl_delay.is_some()
            || self.groups.iter().any(|g| g.agents.contains(&token))
        {
            named
        } else {
            pick(&|a: &str| a == "*")
        }
    }
}

impl AgentRules {
    /// Whether `path` (path and query, starting with `/`) may be fetched.
    pub fn allowed(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let mut best: Option<(usize, bool)> = None;
        for (allow, pattern) in &self.rules {
            if matches(pattern, path) {
                let len = pattern.len();
                best = match best {
                    Some((l, a)) if l > len || (l == len && a) => Some((l, a)),
                    _ => Some((len, *allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// Matches a robots pattern (`*` any run, `$` end) against a path prefix.
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
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

    #[test]
    fn groups_longest_match_and_wildcards() {
        let r = Robots::parse(
            "User-agent: *\nDisallow: /private\nAllow: /private/public\n\n\
             User-agent: Gleaner\nUser-agent: other\nDisallow: /*.pdf$\nDisallow: /tmp/\nAllow: /tmp/ok\nCrawl-delay: 2\n\
             Sitemap: https://x.test/sitemap.xml\n",
        );
        let star = r.for_agent("somebot");
        assert!(!star.allowed("/private/x"));
        assert!(star.allowed("/private/public/x"));
        assert!(star.allowed("/file.pdf"));
        let g = r.for_agent("gleaner");
        assert!(g.allowed("/private/x"), "a named group replaces *");
        assert!(!g.allowed("/docs/a.pdf"));
        assert!(g.allowed("/docs/a.pdf?x=1"));
        assert!(!g.allowed("/tmp/x"));
        assert!(g.allowed("/tmp/ok/1"));
        assert_eq!(g.crawl_delay, Some(2.0));
        assert_eq!(r.sitemaps, vec!["https://x.test/sitemap.xml"]);
        assert!(Robots::disallow_all()
            .for_agent("gleaner")
            .allowed("/robots.txt"));
        assert!(!Robots::disallow_all().for_agent("gleaner").allowed("/"));
    }
}
