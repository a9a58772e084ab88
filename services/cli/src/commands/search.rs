//! `gleaner search`: queries the index and prints the hits.

use crate::args::Common;
use crate::commands::{config, data_dir, init_logs};
use clap::Args;
use gleaner_core::Config;
use gleaner_index::SearchRequest;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints the hits for `req` of the index in `dirs` (one directory, or
/// shards searched as one).
pub fn search(
    cfg: &Config,
    dirs: &[PathBuf],
    req: &SearchRequest,
    json: bool,
) -> anyhow::Result<()> {
    if let Some(dir) = dirs.iter().find(|d| !d.join("meta.json").exists()) {
        return Err(crate::commands::bad_input(format!(
            "no index in {} (give --data DIR of a `gleaner run`, or run one first)",
            dir.display()
        )));
    }
    let idx = gleaner_index::SearchIndex::open_shards(
        dirs,
        cfg.section::<gleaner_index::IndexSettings>()?.snippet_chars,
    )?;
    let found = idx.find(req)?;
    if !json {
        let how = found
            .widened()
            .map_or(String::new(), |how| format!(" ({how})"));
        eprintln!(
            "{}{how}",
            header(found.total, found.took_ms, found.hits.len(), req.offset)
        );
    }
    let ranked = req.sort == gleaner_index::Sort::Relevance;
    print_hits(&found.hits, req.offset, ranked, json)
}

/// The line above the hits: how many match, and which are shown.
fn header(total: u64, took_ms: f64, shown: usize, offset: usize) -> String {
    let which = match shown {
        _ if total == 0 => String::new(),
        0 => format!("; none from {}, past the last", offset + 1),
        n => format!("; showing {n} from {}", offset + 1),
    };
    format!(
        "{total} article{} match{} ({took_ms:.1} ms){which}",
        if total == 1 { "" } else { "s" },
        if total == 1 { "es" } else { "" },
    )
}

/// The hits, numbered from `offset` + 1 as the header counts them; their
/// scores when `ranked` by them (sorted by date, every score is 0).
fn print_hits(
    hits: &[gleaner_index::Hit],
    offset: usize,
    ranked: bool,
    json: bool,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        for h in hits {
            writeln!(out, "{}", serde_json::to_string(h)?)?;
        }
        return Ok(());
    }
    if hits.is_empty() {
        writeln!(out, "no hits")?;
    }
    for (i, h) in hits.iter().enumerate() {
        let score = if ranked {
            format!("  (score {:.2})", h.score)
        } else {
            String::new()
        };
        writeln!(out, "{}. {}{score}\n   {}", offset + i + 1, h.title, h.url)?;
        if let Some(line) = byline(h) {
            writeln!(out, "   {line}")?;
        }
        // Where else the same article was published (its reposts).
        for url in &h.copy_urls {
            writeln!(out, "   also at {url}")?;
        }
        // One line: paragraph breaks become single spaces.
        let snippet = h.snippet.split_whitespace().collect::<Vec<_>>().join(" ");
        writeln!(out, "   {snippet}\n")?;
    }
    Ok(())
}

/// Who published the hit and when: site name (else the site), author
/// and the day as the publisher dated it (`2015-03-10T08:05:41-07:00`
/// is 2015-03-10), as the search page shows them; none without a date
/// or an author, since the site alone is in the URL above.
fn byline(h: &gleaner_index::Hit) -> Option<String> {
    fn given(s: &Option<String>) -> Option<&str> {
        s.as_deref().map(str::trim).filter(|s| !s.is_empty())
    }
    let day = given(&h.date).map(gleaner_core::util::day_of);
    let author = given(&h.author);
    if day.is_none() && author.is_none() {
        return None;
    }
    let site = given(&h.site_name).unwrap_or(&h.site);
    let parts: Vec<&str> = [Some(site), author, day].into_iter().flatten().collect();
    Some(parts.join(" · "))
}

/// The options of `gleaner search`.
#[derive(Args)]
pub struct SearchCmd {
    /// Data directory (default: run.data_dir, "gleaner-data").
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Search these index shards as one index instead of DATA/index: the
    /// data directory (or index directory) of each index instance;
    /// repeatable.
    #[arg(long, value_name = "DIR")]
    pub shard: Vec<PathBuf>,
    /// Hits to show, 1 or more (a limit past the index's size shows every hit).
    #[arg(long, default_value_t = 10, value_parser = at_least_one)]
    pub limit: usize,
    /// Hits to skip first (paging).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Only articles of this site (registered domain, bbc.co.uk); repeatable.
    #[arg(long, value_name = "DOMAIN")]
    pub site: Vec<String>,
    /// Only articles in this language (ISO 639-1 code, en).
    #[arg(long, value_name = "CODE")]
    pub lang: Option<String>,
    /// Only articles published at or after this (RFC 3339 or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub from: Option<String>,
    /// Only articles published before this (RFC 3339, or YYYY-MM-DD with that day).
    #[arg(long, value_name = "DATE")]
    pub to: Option<String>,
    /// Order: relevance, newest or oldest.
    #[arg(long, default_value = "relevance", value_parser = ["relevance", "newest", "oldest"])]
    pub sort: String,
    /// One JSON object per hit per line.
    #[arg(long)]
    pub json: bool,
    /// The query: words, "phrases", -exclusions, OR, title:word, bri*
    /// (words starting with "bri"; empty with --sort newest: the latest
    /// articles).
    #[arg(num_args = 0..)]
    pub query: Vec<String>,
    #[command(flatten)]
    pub common: Common,
}

impl SearchCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("warn");
        let cfg = config(&self.common)?;
        let data = data_dir(&cfg, self.data);
        // An empty filter is no filter, as in the API (`--site "$SITE"`
        // with SITE unset).
        fn given(v: &Option<String>) -> Option<&str> {
            v.as_deref().filter(|v| !v.trim().is_empty())
        }
        let date = |d: &Option<String>, end| {
            given(d)
                .map(|d| gleaner_index::parse_date(d, end))
                .transpose()
                .map_err(|e| crate::commands::bad_input(format!("{e:#}")))
        };
        if let Some(lang) = given(&self.lang) {
            gleaner_index::check_language(lang)
                .map_err(|e| crate::commands::bad_input(format!("--{e:#}")))?;
        }
        let mut req = SearchRequest {
            q: self.query.join(" "),
            sites: self
                .site
                .into_iter()
                .filter(|s| !s.trim().is_empty())
                .collect(),
            lang: given(&self.lang).map(str::to_string),
            from: date(&self.from, false)?,
            to: date(&self.to, true)?,
            sort: self.sort.parse()?,
            offset: self.offset,
            limit: self.limit,
            ..SearchRequest::default()
        };
        req.lift_operators()
            .map_err(|e| crate::commands::bad_input(format!("{e:#}")))?;
        let dirs = crate::commands::index_dirs(&data, &self.shard);
        search(&cfg, &dirs, &req, self.json)?;
        Ok(ExitCode::SUCCESS)
    }
}

/// `--limit`: a whole number of 1 or more (0 would show nothing, which no
/// one asks for; it was taken as 1 without a word); one too large for the
/// machine shows every hit, as its largest would.
fn at_least_one(v: &str) -> Result<usize, String> {
    match crate::commands::whole_number(v) {
        Some(0) => Err("a limit is 1 or more".into()),
        Some(n) => Ok(n),
        None => Err(format!("a limit is a whole number of 1 or more, not {v:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::{at_least_one, byline, header};

    #[test]
    fn a_limit_is_a_whole_number_of_one_or_more() {
        assert_eq!(at_least_one("5"), Ok(5));
        assert_eq!(at_least_one("99999999999999999999999"), Ok(usize::MAX));
        assert!(at_least_one("0").unwrap_err().contains("1 or more"));
        assert!(at_least_one("-3").unwrap_err().contains("\"-3\""));
        assert!(at_least_one("").is_err());
    }

    #[test]
    fn a_hit_says_who_published_it_and_on_which_day() {
        let mut h = gleaner_index::Hit {
            id: "1".into(),
            url: "https://news.example.com/a".into(),
            title: "Bridge".into(),
            score: 1.0,
            snippet: String::new(),
            highlight: String::new(),
            author: None,
            authors: vec![],
            date: None,
            language: None,
            summaries: serde_json::Value::Null,
            site: "example.com".into(),
            site_name: None,
            image: None,
            published: None,
            cluster: None,
            story: None,
            more_reports: 0,
            copies: 0,
            copy_urls: vec![],
        };
        assert_eq!(byline(&h), None);
        h.date = Some("2015-03-10T08:05:41-07:00".into());
        assert_eq!(byline(&h).unwrap(), "example.com · 2015-03-10");
        h.site_name = Some("The Example".into());
        h.author = Some("Mara Olsen".into());
        assert_eq!(byline(&h).unwrap(), "The Example · Mara Olsen · 2015-03-10");
    }

    #[test]
    fn the_header_says_which_hits_are_shown() {
        assert_eq!(
            header(1, 2.5, 1, 0),
            "1 article matches (2.5 ms); showing 1 from 1"
        );
        assert_eq!(
            header(12, 1.0, 2, 10),
            "12 articles match (1.0 ms); showing 2 from 11"
        );
        assert_eq!(
            header(1, 1.0, 0, 100),
            "1 article matches (1.0 ms); none from 101, past the last"
        );
        assert_eq!(header(0, 1.0, 0, 0), "0 articles match (1.0 ms)");
    }
}
