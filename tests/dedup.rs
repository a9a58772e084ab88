//! `gleaner dedup --input`: the dedup stage over a file of articles, through
//! the real binary: verdicts, a late earlier copy corrected, a malformed
//! line sent to the dead letters, and the report on stdout.

use gleaner_core::messages::{Article, Duplicate};
use std::process::Command;

const GLEANER: &str = env!("CARGO_BIN_EXE_gleaner");

const STORY: &str = "The harbour bridge reopened to traffic on Monday morning after eight months of repairs \
that cost the city more than forty million dollars. Engineers replaced the corroded suspension cables, \
resurfaced the deck and installed a new drainage system designed to cope with winter storms. The mayor, \
who cut a ribbon at the northern end shortly after six o'clock, said the work would keep the crossing safe \
for another fifty years. Tolls will rise from two dollars to two dollars and fifty cents next month, a \
change the council approved to repay the loan that funded the project.";

const OTHER: &str = "Fishing crews in the northern bays will be allowed to land a fifth more cod next \
season after scientists found that stocks had recovered faster than expected. The agreement, signed in \
the capital on Thursday after two days of talks, also closes three spawning grounds to trawlers between \
March and May, and funds a new survey vessel for the fisheries institute. Harbour masters welcomed the \
decision but warned that the port's cold stores were already full.";

fn article(id: &str, date: &str, text: &str) -> String {
    serde_json::to_string(&Article {
        id: id.into(),
        url: format!("https://{id}.test/story"),
        title: "Harbour news".into(),
        author: None,
        date: Some(date.into()),
        language: Some("en".into()),
        text: text.into(),
        extractor: "auto".into(),
        fetched_at: "2026-03-05T00:00:00Z".into(),
        cluster: None,
        story: None,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn offline_dedup_writes_verdicts_corrections_and_dead_letters() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("articles.jsonl");
    let lines = [
        article("late", "2026-03-03T09:00:00Z", STORY),
        article("fish", "2026-03-02T09:00:00Z", OTHER),
        "{not json".to_string(),
        article("early", "2026-03-02T08:00:00Z", STORY),
        article(
            "copy",
            "2026-03-04T08:00:00Z",
            &format!("Republished with permission. {STORY}"),
        ),
    ];
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let out_dir = tmp.path().join("out");
    let out = Command::new(GLEANER)
        .args(["dedup", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("5 articles in") && stdout.contains("articles/s"),
        "{stdout}"
    );
    assert!(stdout.contains("corrections 1"), "{stdout}");

    let read = |name: &str| std::fs::read_to_string(out_dir.join(name)).unwrap();
    let unique: Vec<Article> = read("unique.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&str> = unique.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, vec!["late", "fish", "early"]);
    assert!(unique.iter().all(|a| a.cluster.is_some()));
    assert_eq!(
        unique[0].cluster, unique[2].cluster,
        "copies share a cluster"
    );
    let dups: Vec<Duplicate> = read("duplicates.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The earlier copy arrived late: the first one is corrected; the third
    // copy is a repost of the earliest.
    assert_eq!(dups.len(), 2, "{dups:?}");
    assert!(dups[0].correction && dups[0].id == "late" && dups[0].original_id == "early");
    assert!(!dups[1].correction && dups[1].id == "copy" && dups[1].original_id == "early");
    let dead = read("dead-letter.jsonl");
    assert_eq!(dead.lines().count(), 1);
    assert!(dead.contains("malformed message"), "{dead}");
}

#[test]
fn offline_dedup_reads_stdin_and_names_a_missing_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(GLEANER)
        .args([
            "dedup",
            "--input",
            "/nonexistent/articles.jsonl",
            "--output",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/articles.jsonl"));

    use std::io::Write;
    let mut child = Command::new(GLEANER)
        .args(["dedup", "--input", "-", "--output"])
        .arg(tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text = format!(
        "{}\n{}\n",
        article("a", "2026-03-02", STORY),
        article("b", "2026-03-03", STORY)
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("duplicates 1"));
}
