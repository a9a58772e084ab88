//! What a search asks (the query, filters, order and page) and what it
//! gets back (hits, the total, facet counts, the time it took): the shape
//! the HTTP API and the CLI share.

use serde::Serialize;

/// Most hits one page may ask for.
pub const MAX_LIMIT: usize = 100;

/// The order of the hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Best match first (BM25, titles weighing double).
    #[default]
    Relevance,
    /// Latest published first.
    Newest,
    /// Earliest published first.
    Oldest,
}

impl std::str::FromStr for Sort {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "relevance" => Ok(Sort::Relevance),
            "newest" => Ok(Sort::Newest),
            "oldest" => Ok(Sort::Oldest),
            other => anyhow::bail!("sort must be relevance, newest or oldest (got {other:?})"),
        }
    }
}

/// A search: the words (the query language of the README; empty: every
/// article), the filters, the order and the page.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub q: String,
    /// Registered domains (`bbc.co.uk`); any of them.
    pub sites: Vec<String>,
    /// An ISO 639-1 code.
    pub lang: Option<String>,
    /// Published at or after (Unix seconds).
    pub from: Option<i64>,
    /// Published before (Unix seconds).
    pub to: Option<i64>,
    pub has_summary: Option<bool>,
    /// Taken into the index at or after (Unix seconds): what is new.
    pub indexed_from: Option<i64>,
    pub sort: Sort,
    /// Hits (clusters of copies) to skip.
    pub offset: usize,
    pub limit: usize,
    /// Count hits per site, language and month over the whole result set.
    pub facets: bool,
    /// Longest snippet, in characters (`None`: `index.snippet_chars`).
    pub snippet_chars: Option<usize>,
    /// One hit per news story (its first matching report), with the count
    /// of its other reports, instead of one per article.
    pub group_by_story: bool,
    /// The query's last word is whole: not asked as the start of words
    /// when nothing matches as written (prefix.rs). A standing query (a
    /// feed, a stream) is not being typed, and a window of new articles
    /// matching nothing would otherwise widen it.
    pub whole_words: bool,
}

/// Bounds of a snippet's length a request may ask for.
pub const SNIPPET_CHARS: std::ops::RangeInclusive<usize> = 20..=1000;

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Deepest nesting of parentheses in a query. Tantivy's query grammar
/// descends once per level on the thread's stack: 5,000 levels overflowed
/// the CLI's main thread, an abort rather than an error. No one nests a
/// search this deep on purpose.
pub const MAX_QUERY_NESTING: usize = 32;

/// Why `q` is not a query this index answers: too long, or nested too
/// deep (parentheses inside quotes are words and do not count).
pub fn check_query(q: &str) -> anyhow::Result<()> {
    let chars = q.chars().count();
    if chars > MAX_QUERY_CHARS {
        anyhow::bail!("the query is longer than {MAX_QUERY_CHARS} characters ({chars})");
    }
    let (mut depth, mut deepest, mut quoted) = (0usize, 0usize, false);
    for c in q.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_QUERY_NESTING {
        anyhow::bail!("the query nests parentheses {deepest} deep; at most {MAX_QUERY_NESTING}");
    }
    check_patterns(q)
}

/// Why a pattern of `q` addressed to a field (`title:/bridg.*/`) cannot
/// be matched: not a regular expression, or one whose automaton is past
/// tantivy-fst's size limits (`/a{99999}/`). The lenient parser leaves
/// such a pattern out, so a query of one asked nothing and found every
/// article. A pattern without a field (a pasted `/r/rust`) is no pattern
/// and stays left out.
fn check_patterns(q: &str) -> anyhow::Result<()> {
    use tantivy::query_grammar::{UserInputAst, UserInputLeaf};
    /// The first such pattern, said with what is wrong with it.
    fn first_bad(ast: &UserInputAst) -> Option<String> {
        match ast {
            UserInputAst::Clause(clauses) => clauses.iter().find_map(|(_, a)| first_bad(a)),
            UserInputAst::Boost(a, _) => first_bad(a),
            UserInputAst::Leaf(leaf) => match leaf.as_ref() {
                UserInputLeaf::Regex {
                    field: Some(field),
                    pattern,
                } => tantivy_fst::Regex::new(pattern).err().map(|e| {
                    // regex-syntax's message draws the pattern with a caret
                    // over several lines; its last line says what is wrong.
                    let e = e.to_string();
                    let why = e.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
                    format!("{field}:/{pattern}/ is not a pattern the index can match ({why})")
                }),
                _ => None,
            },
        }
    }
    let (ast, _) = tantivy::query_grammar::parse_query_lenient(q);
    match first_bad(&ast) {
        Some(why) => Err(anyhow::anyhow!(why)),
        None => Ok(()),
    }
}

/// A language filter is an ISO 639-1 code, as articles carry (`en`,
/// `zh`): `lang=english` found nothing, and said nothing of why.
pub fn check_language(code: &str) -> anyhow::Result<()> {
    let code = code.trim();
    anyhow::ensure!(
        code.len() == 2 && code.bytes().all(|b| b.is_ascii_alphabetic()),
        "lang must be an ISO 639-1 code, two letters such as en or zh (got {code:?})"
    );
    Ok(())
}

impl SearchRequest {
    /// Takes the filter operators out of the query into the filters:
    /// `site:bbc.co.uk`, `lang:de` (or `language:de`), `after:2026-03-01`
    /// (that day on), `before:2026-03-05` (up to that day, not included).
    /// Quoted text is left alone.
    /// A query too long or nested too deep is refused (`check_query`).
    pub fn lift_operators(&mut self) -> anyhow::Result<()> {
        check_query(&self.q)?;
        let mut kept = Vec::new();
        let mut quoted = false;
        for token in self.q.split_whitespace() {
            let op = if quoted { None } else { token.split_once(':') };
            quoted ^= token.matches('"').count() % 2 == 1;
            match op {
                // `site:*`, `lang:*`: any site or language, no filter.
                Some(("site" | "lang" | "language", "*")) => {}
                Some(("site", v)) if !v.is_empty() => self.sites.push(v.to_string()),
                Some(("lang" | "language", v)) if !v.is_empty() => {
                    check_language(v)?;
                    self.lang = Some(v.to_string())
                }
                Some(("after", v)) => self.from = Some(parse_date(v, false)?),
                Some(("before", v)) => self.to = Some(parse_date(v, false)?),
                _ => kept.push(token),
            }
        }
        // An operator with nothing on one side (`bridge OR`, as a query
        // typed into the page reads halfway) joins nothing: dropped, as
        // the words around it still mean what they say.
        let dangling = |t: &str| matches!(t, "OR" | "AND" | "NOT" | "||" | "&&");
        while kept.last().is_some_and(|t| dangling(t)) {
            kept.pop();
        }
        // A leading NOT still says what to leave out.
        let lead = kept
            .iter()
            .take_while(|t| dangling(t) && **t != "NOT")
            .count();
        self.q = kept[lead..].join(" ");
        Ok(())
    }
}

/// Counts of the whole result set by a field's value, largest first.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Facets {
    pub site: Vec<(String, u64)>,
    pub language: Vec<(String, u64)>,
    /// `YYYY-MM`, by published date.
    pub month: Vec<(String, u64)>,
}

/// A page of hits.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    /// Articles that match (copies counted apart).
    pub total: u64,
    pub hits: Vec<Hit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facets: Option<Facets>,
    /// The query matched nothing as written, so words of five letters or
    /// more were matched within one edit (a typo) instead.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fuzzy: bool,
    /// The query matched nothing as written, so its last word was asked
    /// as the start of words (`harbour bri` as `harbour bri*`): it is
    /// being typed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prefix: bool,
    pub took_ms: f64,
}

impl SearchResults {
    /// How the query was widened to find these, if it was, as the CLI
    /// and the search page say it.
    pub fn widened(&self) -> Option<&'static str> {
        if self.prefix {
            Some("the last word as the start of words")
        } else if self.fuzzy {
            Some("words within one typo")
        } else {
            None
        }
    }
}

/// A date as the API and the CLI take it: RFC 3339 (`2026-03-02T10:00:00Z`)
/// or a day (`2026-03-02`, its start in UTC); `end_of_day` moves a day to
/// the start of the next, so `to=2026-03-02` includes that day.
pub fn parse_date(s: &str, end_of_day: bool) -> anyhow::Result<i64> {
    let s = s.trim();
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Ok(t.as_second());
    }
    let day: jiff::civil::Date = s.parse().map_err(|_| {
        anyhow::anyhow!(
            "not a date: {s:?} (give RFC 3339, 2026-03-02T10:00:00Z, or a day, 2026-03-02)"
        )
    })?;
    // A day at the edge of the calendar (9999-12-31, whose midnight is past
    // the last instant jiff holds) stands for that edge: a filter, not an
    // error.
    let edge = if day.year() > 0 {
        jiff::Timestamp::MAX
    } else {
        jiff::Timestamp::MIN
    };
    let day = if end_of_day {
        day.tomorrow().ok()
    } else {
        Some(day)
    };
    Ok(day
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map_or(edge, |z| z.timestamp())
        .as_second())
}

/// One search result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hit {
    pub id: String,
    pub url: String,
    pub title: String,
    pub score: f32,
    /// Plain text: the sentence the match is in, cut at a word.
    pub snippet: String,
    /// The snippet as HTML: escaped, the matched words (a phrase as one)
    /// in `<mark>`.
    pub highlight: String,
    /// The byline as the page gives it (several authors joined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Each author apart (`author:"Name"` finds their articles).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The registered domain of its URL.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub site: String,
    /// The publication's name, as the page gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
    /// The lead image's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// When it was reported (its date, else its fetch), RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    pub summaries: serde_json::Value,
    /// The dedup cluster of the article; other copies of it that matched
    /// are left out of the hits and counted in `copies`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub copies: u32,
    /// The URLs of those copies, earliest published first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub copy_urls: Vec<String>,
    /// The news story it reports on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub story: Option<String>,
    /// With `group=story`: the story's other reports that matched, left
    /// out of the hits (this hit is its first report that matched).
    #[serde(skip_serializing_if = "is_zero")]
    pub more_reports: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339_or_days_and_a_day_ends_at_the_next() {
        assert_eq!(
            parse_date("2026-03-02T00:00:00Z", false).unwrap(),
            1_772_409_600
        );
        assert_eq!(parse_date("2026-03-02", false).unwrap(), 1_772_409_600);
        assert_eq!(
            parse_date("2026-03-02", true).unwrap(),
            1_772_409_600 + 86_400
        );
        assert_eq!(
            parse_date("2026-03-02T01:00:00+01:00", false).unwrap(),
            1_772_409_600
        );
        // The calendar's edges are filters at its ends, not errors.
        let last = jiff::Timestamp::MAX.as_second();
        assert_eq!(parse_date("9999-12-31", false).unwrap(), last);
        assert_eq!(parse_date("9999-12-31", true).unwrap(), last);
        assert!(parse_date("9999-12-30", false).unwrap() < last);
        assert_eq!(
            parse_date("-009999-01-01", false).unwrap(),
            jiff::Timestamp::MIN.as_second()
        );
        for bad in ["yesterday", "2026-13-01", "", "2026-03-02T25:00:00Z"] {
            assert!(parse_date(bad, false).is_err(), "{bad}");
        }
        assert!("newest".parse::<Sort>().is_ok());
        let mut r = SearchRequest {
            q: r#"bridge site:bbc.co.uk lang:en after:2026-03-01 before:2026-03-05 "see site:x""#
                .into(),
            ..SearchRequest::default()
        };
        r.lift_operators().unwrap();
        assert_eq!(r.q, r#"bridge "see site:x""#);
        for (q, lifted) in [
            ("bridge OR", "bridge"),
            ("AND bridge OR", "bridge"),
            ("OR", ""),
            ("NOT x", "NOT x"),
        ] {
            let mut r = SearchRequest {
                q: q.into(),
                ..SearchRequest::default()
            };
            r.lift_operators().unwrap();
            assert_eq!(r.q, lifted, "{q}");
        }
        assert_eq!(
            (r.sites, r.lang.as_deref()),
            (vec!["bbc.co.uk".to_string()], Some("en"))
        );
        assert_eq!((r.from, r.to), (Some(1_772_323_200), Some(1_772_668_800)));
        let mut bad = SearchRequest {
            q: "after:soon".into(),
            ..SearchRequest::default()
        };
        assert!(bad.lift_operators().is_err());
        assert!("latest".parse::<Sort>().is_err());
    }

    #[test]
    fn a_query_too_long_or_nested_too_deep_is_refused() {
        let nested = |n: usize| format!("{}bridge{}", "(".repeat(n), ")".repeat(n));
        assert!(check_query(&nested(MAX_QUERY_NESTING)).is_ok());
        let e = check_query(&nested(MAX_QUERY_NESTING + 1)).unwrap_err();
        assert!(e.to_string().contains("33 deep"), "{e}");
        // Parentheses in a phrase are words; unbalanced ones do not underflow.
        let phrase = format!("\"{}\"", "(".repeat(200));
        assert!(check_query(&phrase).is_ok());
        assert!(check_query(")))) ((bridge").is_ok());
        assert!(check_query(&"a".repeat(MAX_QUERY_CHARS + 1)).is_err());
        let mut req = SearchRequest {
            q: nested(5_000).chars().take(MAX_QUERY_CHARS).collect(),
            ..SearchRequest::default()
        };
        assert!(req.lift_operators().is_err());
    }

    #[test]
    fn a_pattern_that_cannot_be_matched_is_refused() {
        let e = check_query("bridge title:/(/").unwrap_err().to_string();
        assert!(
            e.contains("title:/(/") && e.contains("unclosed group"),
            "{e}"
        );
        let e = check_query("body:/a{99999}/").unwrap_err().to_string();
        assert!(e.contains("size limit"), "{e}");
        assert!(check_query("title:/bridg.*/ OR body:/ferr(y|ies)/").is_ok());
        // No field: a pasted path, no pattern, left out as before.
        assert!(check_query("/r/rust (").is_ok());
        // In quotes it is words.
        assert!(check_query("\"title:/(/\"").is_ok());
    }
}
