//! Seed messages from URLs and seed files, for `gleaner seed` and `gleaner run`.

use crate::args::Common;
use crate::args::{Kafka, SeedOptions};
use crate::commands::{bad_input, brokers};
use crate::commands::{config, init_logs};
use anyhow::Context;
use clap::Args;
use gleaner_core::messages::Seed;
use gleaner_core::stage::Output;
use gleaner_core::Config;
use gleaner_core::Topic;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

/// `example.com/news`: a host name without its scheme (a dot, no spaces,
/// no path separator before the first dot).
pub(crate) fn looks_like_a_host(a: &str) -> bool {
    let host = a.split('/').next().unwrap_or("");
    host.contains('.')
        && !host.starts_with('.')
        && !a.contains(char::is_whitespace)
        && !a.ends_with(".txt")
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.:".contains(c))
}

/// Most bytes of seeds read from one file or stdin (about three million
/// URLs): a device or a stream without end is refused, not read forever.
const MAX_SEEDS_BYTES: u64 = 256 << 20;

/// The text of a file of seeds, at most `MAX_SEEDS_BYTES`.
fn read_seeds(from: impl std::io::Read, name: &str) -> anyhow::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    from.take(MAX_SEEDS_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading seeds from {name}"))
        .map_err(|e| bad_input(format!("{e:#}")))?;
    if bytes.len() as u64 > MAX_SEEDS_BYTES {
        return Err(bad_input(format!(
            "seeds from {name}: more than {} MiB; give them in parts",
            MAX_SEEDS_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| bad_input(format!("seeds from {name}: not UTF-8 text")))
}

/// Seed messages for URLs, or files of URLs (one per line, `#` comments),
/// each URL at most `max_url_length` characters once normalised (fetch
/// would refuse a longer one).
pub(crate) fn seed_outputs(
    args: &[String],
    depth: Option<u32>,
    recrawl: bool,
    schedule: &SeedOptions,
    max_url_length: usize,
) -> anyhow::Result<Vec<Output>> {
    // Each URL with where it came from (`seeds.txt:4: `, for a file's
    // line), so that a bad one is named where the user can find it.
    let mut urls: Vec<(String, String)> = Vec::new();
    for a in args {
        let p = Path::new(a);
        // What a bad line or an empty input is named by.
        let name = if a == "-" { "stdin" } else { a.as_str() };
        // `-`: the URLs on stdin (`grep ... | gleaner seed -`).
        let text = if a == "-" {
            Some(read_seeds(std::io::stdin().lock(), name)?)
        } else if !a.contains("://") && p.exists() && !p.is_dir() {
            // Not only a regular file: a pipe (`--seeds <(grep ...)`) or a
            // device reads the same way.
            let f = std::fs::File::open(p)
                .with_context(|| format!("reading seeds from {a}"))
                .map_err(|e| bad_input(format!("{e:#}")))?;
            Some(read_seeds(f, a)?)
        } else {
            None
        };
        if let Some(text) = text {
            // A BOM, as Windows editors write one, is no part of the first URL.
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let before = urls.len();
            urls.extend(
                text.lines()
                    .enumerate()
                    .map(|(n, l)| (format!("{name}:{}: ", n + 1), l.trim()))
                    .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
                    .map(|(at, l)| (at, l.to_string())),
            );
            if urls.len() == before {
                return Err(bad_input(format!(
                    "seeds from {name}: no URL in it (one URL a line; # starts a comment)"
                )));
            }
        } else if a.contains("://") {
            urls.push((String::new(), a.clone()));
        } else if p.is_dir() {
            return Err(bad_input(format!(
                "seed {a:?} is a directory: give a file of URLs, one a line"
            )));
        } else if looks_like_a_host(a) {
            return Err(bad_input(format!(
                "seed {a:?} has no scheme: did you mean https://{a}?"
            )));
        } else {
            return Err(bad_input(format!(
                "seed {a:?}: no such file, and not a URL (URLs start with http:// or https://)"
            )));
        }
    }
    urls.iter()
        .map(|(at, u)| {
            let parsed = gleaner_core::util::normalise_url(u)
                .map_err(|e| bad_input(format!("{at}bad seed URL {u:?}: {e:#}")))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(bad_input(format!("{at}seed {u:?} is not an http(s) URL")));
            }
            let length = parsed.as_str().len();
            if length > max_url_length {
                let start: String = u.chars().take(60).collect();
                return Err(bad_input(format!(
                    "{at}seed URL of {length} characters ({start}...) is longer than fetch.max_url_length ({max_url_length})"
                )));
            }
            let seed = Seed {
                url: parsed.to_string(),
                depth,
                scope: None,
                priority: None,
                recrawl,
                every_secs: schedule.every_secs,
                adaptive: schedule.adaptive,
                allow: schedule.allow.clone(),
                deny: schedule.deny.clone(),
            };
            Ok(Output::of(
                Topic::SEEDS,
                gleaner_core::util::host_of(parsed.as_str()),
                &seed,
            ))
        })
        .collect()
}

/// `gleaner seed`: produces the seeds onto the seeds topic.
pub async fn produce(cfg: &Config, kafka: &Kafka, seeds: &[Output]) -> anyhow::Result<()> {
    let brokers = brokers(cfg, kafka);
    crate::commands::broker_reachable(&brokers).await?;
    let producer = gleaner_kafka::producer(cfg, &brokers)?;
    gleaner_kafka::produce_all(&producer, cfg, seeds).await?;
    println!("produced {} seed(s) to {}", seeds.len(), cfg.topics.seeds);
    Ok(())
}

/// `gleaner seed --data DIR`: leaves the seeds for the run on DIR.
pub fn post(dir: &Path, seeds: &[Output]) -> anyhow::Result<()> {
    crate::datadir::post_seeds(dir, seeds)?;
    if crate::datadir::DataLock::held_by_a_run(dir) {
        println!(
            "handed {} seed(s) to the run on {}",
            seeds.len(),
            dir.display()
        );
    } else {
        println!(
            "queued {} seed(s) in {}: no run is using it now, the next `gleaner run --data {}` takes them",
            seeds.len(),
            dir.display(),
            dir.display()
        );
    }
    Ok(())
}

/// The options of `gleaner seed`.
#[derive(Args)]
pub struct SeedCmd {
    /// Seed URLs, files with one URL per line, or `-` for URLs on stdin.
    #[arg(required = true, value_name = "URL_OR_FILE")]
    pub urls: Vec<String>,
    /// Hand the seeds to the `gleaner run` working on DIR (or, if none
    /// is, to the next one) instead of producing them to Kafka.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Link depth from each seed (default: fetch.default_depth).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Fetch again even if seen before.
    #[arg(long)]
    pub recrawl: bool,
    #[command(flatten)]
    pub schedule: SeedOptions,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl SeedCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("warn");
        let cfg = config(&self.common)?;
        let max_url = cfg
            .section::<gleaner_fetch::FetchSettings>()?
            .max_url_length;
        let seeds = seed_outputs(
            &self.urls,
            self.depth,
            self.recrawl,
            &self.schedule,
            max_url,
        )?;
        match self.data {
            Some(dir) => post(&dir, &seeds)?,
            None => produce(&cfg, &self.kafka, &seeds).await?,
        }
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_file_from_windows_reads_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("seeds.txt");
        // A BOM, CRLF line ends, a comment and a blank line.
        std::fs::write(
            &file,
            "\u{feff}https://example.com/a\r\n\r\n# later\r\nhttps://example.org/b\r\n",
        )
        .unwrap();
        let f = file.to_string_lossy().into_owned();
        let seeds_of = |depth| {
            seed_outputs(
                std::slice::from_ref(&f),
                depth,
                false,
                &SeedOptions::default(),
                2083,
            )
        };
        let seeds = seeds_of(Some(1)).unwrap();
        let keys: Vec<_> = seeds.iter().map(|o| o.key.clone()).collect();
        assert_eq!(keys, ["example.com", "example.org"]);

        std::fs::write(&file, "https://example.com/a\n\nnot a url\n").unwrap();
        let said = format!("{:#}", seeds_of(None).unwrap_err());
        assert!(
            said.contains(&format!("{f}:3: bad seed URL \"not a url\"")),
            "{said}"
        );
        std::fs::write(&file, "ftp://example.com/\n").unwrap();
        let e = seeds_of(None).unwrap_err();
        assert!(format!("{e:#}").contains(":1: seed \"ftp://"), "{e:#}");
        // A file of comments alone is named, not taken for nothing to do.
        std::fs::write(&file, "# none yet\n\n").unwrap();
        let e = seeds_of(None).unwrap_err();
        assert!(format!("{e:#}").contains("no URL in it"), "{e:#}");
        // A device or a pipe reads as a file; a directory is named as one.
        let refused = |arg: String| {
            let e = seed_outputs(&[arg], None, false, &SeedOptions::default(), 2083);
            format!("{:#}", e.unwrap_err())
        };
        assert!(refused("/dev/null".into()).contains("no URL in it"));
        // A device without end is refused at the bound, not read forever.
        assert!(refused("/dev/zero".into()).contains("more than 256 MiB"));
        let e = refused(dir.path().to_string_lossy().into_owned());
        assert!(e.contains("is a directory"), "{e}");
        // A URL past fetch.max_url_length is named with its length.
        let e = refused(format!("https://example.com/{}", "a".repeat(2100)));
        assert!(
            e.contains("seed URL of 2120 characters (https://example.com/aaa"),
            "{e}"
        );
    }
}
