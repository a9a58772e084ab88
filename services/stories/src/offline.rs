//! `gleaner stories --input FILE.jsonl --output DIR`: the stage's code over
//! Article JSON lines, for tuning and scoring without a crawl.

use crate::settings::StorySettings;
use crate::window::Stories;
use gleaner_core::messages::{Article, StoryEvent};
use rustc_hash::FxHashMap;
use std::io::{BufRead, Write};

/// What one offline run did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Report {
    pub articles: usize,
    /// Lines that were not an article (each reported on stderr).
    pub bad_lines: usize,
    pub created: usize,
    pub merged: usize,
    /// Stories of two or more articles at the end.
    pub multi: usize,
    /// Stories open at the end, and the articles in them.
    pub open: usize,
    pub held: usize,
    /// Candidate stories found and compared whole, over all articles.
    pub found: u64,
    pub compared: u64,
}

/// Places every article of `input` in its story. Writes `{id, story}` per
/// article to `stories` (in input order, with each story's final id, so
/// later merges are applied) and every creation and merge to `log`.
pub fn run(
    input: impl BufRead,
    settings: StorySettings,
    mut stories: impl Write,
    mut log: impl Write,
) -> anyhow::Result<Report> {
    let mut window = Stories::new(settings);
    let mut report = Report::default();
    let mut placed: Vec<(String, String)> = Vec::new();
    let mut merged_into: FxHashMap<String, String> = FxHashMap::default();
    let now = gleaner_core::util::unix_now() as i64;
    let lines = gleaner_core::lines::bounded_lines(input, gleaner_core::lines::MAX_LINE_BYTES);
    for (i, line) in lines.enumerate() {
        let line = match line {
            Ok(line) => line,
            // Too long, or not UTF-8: a bad line, and the next follows.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                eprintln!("line {}: not an article: {e}", i + 1);
                report.bad_lines += 1;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if line.trim().is_empty() {
            continue;
        }
        let a: Article = match serde_json::from_str(&line) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("line {}: not an article: {e}", i + 1);
                report.bad_lines += 1;
                continue;
            }
        };
        let assigned = window.assign(&a, now);
        for e in &assigned.events {
            write_event(&mut log, e)?;
            match (e.kind.as_str(), &e.into) {
                ("merged", Some(into)) => {
                    report.merged += 1;
                    merged_into.insert(e.story.clone(), into.clone());
                }
                _ => report.created += 1,
            }
        }
        placed.push((a.id, assigned.story));
        report.articles += 1;
    }
    let mut sizes: FxHashMap<String, usize> = FxHashMap::default();
    for (id, story) in &placed {
        let story = resolve(&merged_into, story);
        *sizes.entry(story.to_string()).or_default() += 1;
        serde_json::to_writer(&mut stories, &serde_json::json!({"id": id, "story": story}))?;
        stories.write_all(b"\n")?;
    }
    report.multi = sizes.values().filter(|&&n| n > 1).count();
    (report.open, report.held) = (window.open(), window.held());
    (report.found, report.compared) = (window.postings_read, window.scored);
    stories.flush()?;
    log.flush()?;
    Ok(report)
}

fn write_event(out: &mut impl Write, e: &StoryEvent) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, e)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// The id a story has now: merges followed to the story that absorbed it.
pub fn resolve<'a>(merged_into: &'a FxHashMap<String, String>, story: &'a str) -> &'a str {
    let mut s = story;
    // Each merge points to an older story, so the chain ends; the bound
    // guards against a log that says otherwise.
    for _ in 0..64 {
        match merged_into.get(s) {
            Some(next) => s = next,
            None => break,
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_written_by_hand_need_no_extractor_or_fetch_time() {
        let input = "{\"id\":\"a\",\"url\":\"https://a.example/1\",\"title\":\"Bridge reopens\",\"text\":\"The harbour bridge reopened.\",\"date\":\"2026-03-02\"}\n\
            \n\
            not json\n\
            {\"id\":\"b\",\"url\":\"https://b.example/2\",\"title\":\"Bridge open again\",\"text\":\"The harbour bridge reopened on Monday.\"}\n";
        // A line that is not UTF-8 is a bad line too, and the run goes on.
        let input = [input.as_bytes(), b"\xff\xfe\n"].concat();
        let (mut stories, mut log) = (Vec::new(), Vec::new());
        let r = run(&input[..], StorySettings::default(), &mut stories, &mut log).unwrap();
        assert_eq!((r.articles, r.bad_lines), (2, 2), "{r:?}");
        assert_eq!(String::from_utf8(stories).unwrap().lines().count(), 2);
    }
}
