//! Small helpers shared by every stage: ids, timestamps, excerpts, and
//! the process's CPU time the benches report.

use std::time::{SystemTime, UNIX_EPOCH};

/// FNV-1a, 64 bits: stable across runs and platforms, unlike std's hasher.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_parts(&[bytes])
}

/// FNV-1a over several byte strings as if they were one, without joining them.
pub fn fnv1a64_parts(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in parts.iter().flat_map(|p| p.iter()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A deterministic id for a document, from its normalised URL: 32 hex digits
/// made of two independent 64-bit hashes, so collisions need ~2^64 documents.
pub fn doc_id(normalised_url: &str) -> String {
    let a = fnv1a64(normalised_url.as_bytes());
    let mut salted = Vec::with_capacity(normalised_url.len() + 1);
    salted.push(0x5a);
    salted.extend_from_slice(normalised_url.as_bytes());
    let b = fnv1a64(&salted).rotate_left(17) ^ (normalised_url.len() as u64);
    format!("{a:016x}{b:016x}")
}

/// Normalises a URL for ids and the seen-set: lowercase scheme and host,
/// no default port, no dot segments (the `url` crate does those), no
/// fragment, percent-escapes with uppercase hex and unreserved characters
/// unescaped, and no empty query.
pub fn normalise_url(raw: &str) -> Result<url::Url, url::ParseError> {
    normalise_url_stripping(raw, &[])
}

/// [`normalise_url`], also dropping query parameters whose names match one
/// of `strip` (exact, or a prefix when the pattern ends in `*`, as `utm_*`).
pub fn normalise_url_stripping(raw: &str, strip: &[String]) -> Result<url::Url, url::ParseError> {
    let mut u = url::Url::parse(raw.trim())?;
    u.set_fragment(None);
    let path = normalise_escapes(u.path());
    if path != u.path() {
        u.set_path(&path);
    }
    if let Some(q) = u.query() {
        let drop = |name: &str| {
            strip.iter().any(|p| match p.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => name == p,
            })
        };
        let kept: Vec<String> = q
            .split('&')
            .filter(|kv| !kv.is_empty() && !drop(kv.split('=').next().unwrap_or("")))
            .map(normalise_escapes)
            .collect();
        if kept.is_empty() {
            u.set_query(None);
        } else {
            u.set_query(Some(&kept.join("&")));
        }
    }
    Ok(u)
}

/// `%7e` -> `~`, `%2f` -> `%2F`: one spelling per URL.
fn normalise_escapes(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(0);
            if v.is_ascii_alphanumeric() || matches!(v, b'-' | b'.' | b'_' | b'~') {
                out.push(v as char);
            } else {
                out.push('%');
                out.push_str(&s[i + 1..i + 3].to_ascii_uppercase());
            }
            i += 3;
        } else {
            let c = s[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The host of a URL, used as the message key so one worker owns a host.
pub fn host_of(raw: &str) -> String {
    url::Url::parse(raw)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default()
}

/// `href` as an absolute http(s) URL, resolved against the page's `base`;
/// `None` for anything else (`data:`, `javascript:`, unparseable).
pub fn absolute_url(base: &str, href: &str) -> Option<String> {
    let base = url::Url::parse(base).ok();
    let u = match base {
        Some(b) => b.join(href.trim()).ok()?,
        None => url::Url::parse(href.trim()).ok()?,
    };
    matches!(u.scheme(), "http" | "https").then(|| u.to_string())
}

/// The registered domain of a host by the Public Suffix List (the `psl`
/// crate, which compiles the list in): `bbc.co.uk` for `news.bbc.co.uk`,
/// and `a.github.io` apart from `b.github.io`. An IP address, or a name
/// with no registrable part (`localhost`), is its own domain.
pub fn registered_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.parse::<std::net::IpAddr>().is_ok() {
        return host;
    }
    psl::domain_str(&host).unwrap_or(&host).to_string()
}

/// CPU seconds this process has used, every thread: utime and stime, the
/// 14th and 15th fields of /proc/self/stat, in Linux's fixed clock ticks
/// of 1/100 s; 0 where there is no /proc.
pub fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name, which is in parentheses and may
    // hold spaces.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Milliseconds since the Unix epoch.
pub fn unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The current time as RFC 3339 in UTC, e.g. `2026-11-22T01:02:03Z`.
pub fn now_rfc3339() -> String {
    rfc3339(unix_now())
}

/// The current time as RFC 3339 in UTC to the millisecond, e.g.
/// `2026-11-22T01:02:03.456Z`: for latencies measured from it.
pub fn now_rfc3339_millis() -> String {
    format!("{:.3}", jiff::Timestamp::now())
}

/// Formats Unix seconds as RFC 3339 in UTC, e.g. `2026-11-22T01:02:03Z`
/// (a time past jiff's range, year 9999, is given as its last second).
pub fn rfc3339(secs: u64) -> String {
    let t = i64::try_from(secs)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .unwrap_or(jiff::Timestamp::MAX);
    format!("{:.0}", t)
}

/// The day of an RFC 3339 date as its writer dated it
/// (`2026-03-01T10:00:00+02:00` is `2026-03-01`); anything else as it is.
pub fn day_of(rfc3339: &str) -> &str {
    match rfc3339.get(..10) {
        Some(d) if d.bytes().filter(|b| *b == b'-').count() == 2 => d,
        _ => rfc3339,
    }
}

/// At most `max` bytes of `s`, cut on a char boundary.
pub fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A readable excerpt of a payload for the dead-letter topic.
pub fn excerpt(payload: &[u8], max: usize) -> String {
    let cut = &payload[..payload.len().min(max)];
    String::from_utf8_lossy(cut).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_308_245), "2026-11-22T00:44:05Z");
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        let a = doc_id("https://example.com/a");
        assert_eq!(a, doc_id("https://example.com/a"));
        assert_ne!(a, doc_id("https://example.com/b"));
        assert_eq!(a.len(), 32);
    }

    #[test]
    fn normalise_drops_fragment_and_default_port() {
        let u = normalise_url("HTTP://Example.COM:80/a/./b/../c#frag").unwrap();
        assert_eq!(u.as_str(), "http://example.com/a/c");
    }

    #[test]
    fn normalise_escapes_and_tracking_parameters() {
        let strip = vec!["utm_*".to_string(), "fbclid".to_string()];
        let u = normalise_url_stripping(
            "https://x.test/a%7eb/%2f?utm_source=n&id=3&fbclid=z&q=%e2%82%ac#top",
            &strip,
        )
        .unwrap();
        assert_eq!(u.as_str(), "https://x.test/a~b/%2F?id=3&q=%E2%82%AC");
        let u = normalise_url_stripping("https://x.test/?utm_medium=a", &strip).unwrap();
        assert_eq!(u.as_str(), "https://x.test/");
    }

    #[test]
    fn process_cpu_time_grows_with_work() {
        // Spin until a tenth of a second of CPU shows (ticks are 1/100 s),
        // or ten seconds pass on a machine busy with other tests.
        let before = process_cpu_seconds();
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while process_cpu_seconds() < before + 0.1
            && started.elapsed() < std::time::Duration::from_secs(10)
        {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        }
        assert!(
            process_cpu_seconds() >= before + 0.1,
            "ten seconds of spinning showed no CPU time"
        );
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate_utf8("héllo", 2), "h");
        assert_eq!(truncate_utf8("abc", 10), "abc");
    }
}
