//! Stages on a real Kafka-protocol broker (GLEANER_TEST_BROKERS, started by
//! scripts/test.sh) restarted or killed: what they had done or read is not
//! lost (fetch's pending URLs, dedup's window, extract's site rules).

mod common;

use common::*;
use gleaner_core::messages::{Article, Duplicate};
use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// kill -9 of the fetch service mid-crawl, then a restart on the same state
/// directory: every page is fetched (no pending URL forgotten) and only the
/// batch in flight at the kill can be fetched twice (no completed URL is).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_fetch_survives_kill_9() {
    let Some(brokers) = test_brokers("kafka_fetch_survives_kill_9") else {
        return;
    };
    const PAGES: usize = 40;
    const BATCH: usize = 4;
    let (base, log) = linked_site(PAGES, 60).await;

    let tmp = tempfile::tempdir().unwrap();
    let prefix = format!("kill{}", unique());
    let cfg = test_config(tmp.path(), Some(&prefix));
    edit_config(
        &cfg,
        &[("batch_max = 64 ", &format!("batch_max = {BATCH} "))],
    );
    assert!(gleaner(&["topics"], &cfg, &brokers)
        .status()
        .unwrap()
        .success());
    let state = tmp.path().join("fetch-state");
    let state_arg = state.to_string_lossy().into_owned();
    let spawn = || {
        gleaner(
            &["fetch", "--allow-private", "--state", &state_arg],
            &cfg,
            &brokers,
        )
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(tmp.path().join(format!("fetch-{}.log", unique()))).unwrap())
        .spawn()
        .unwrap()
    };
    let mut fetch = spawn();
    assert!(gleaner(&["seed", &format!("{base}/")], &cfg, &brokers)
        .status()
        .unwrap()
        .success());
    let requested = |log: &Log| {
        log.lock()
            .unwrap()
            .iter()
            .filter(|p| p.starts_with("/p/"))
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while requested(&log) < 12 {
        assert!(Instant::now() < deadline, "the crawl did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    fetch.kill().unwrap(); // SIGKILL
    fetch.wait().unwrap();
    let before = requested(&log);
    let mut fetch = spawn();
    let all: BTreeSet<String> = (0..PAGES).map(|i| format!("/p/{i}")).collect();
    loop {
        let seen: BTreeSet<String> = log
            .lock()
            .unwrap()
            .iter()
            .filter(|p| p.starts_with("/p/"))
            .cloned()
            .collect();
        if seen == all {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "pages never fetched: {:?}",
            all.difference(&seen).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    Command::new("kill")
        .args(["-TERM", &fetch.id().to_string()])
        .status()
        .unwrap();
    assert!(fetch.wait().unwrap().success());

    let paths = log.lock().unwrap().clone();
    let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
    for p in paths.iter().filter(|p| p.starts_with("/p/")) {
        *counts.entry(p).or_default() += 1;
    }
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    eprintln!(
        "kill -9 after {before} page requests: {} fetched twice: {twice:?}",
        twice.len()
    );
    assert!(
        twice.len() <= BATCH,
        "more than the batch in flight was fetched again: {twice:?}"
    );
    let pages: BTreeSet<String> = read_topic(&brokers, &format!("{prefix}.pages"))
        .iter()
        .map(|p| {
            serde_json::from_slice::<serde_json::Value>(p).unwrap()["url"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(pages.len(), PAGES + 1, "every page is on the pages topic");
}

/// Dedup rebuilds its window from the tail of its own output after a
/// restart, so a repost of an article seen before the restart is caught.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_dedup_window_survives_restart() {
    let Some(brokers) = test_brokers("kafka_dedup_window_survives_restart") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg_path, cfg) = kafka_test_config(tmp.path(), "dedup", &brokers).await;
    let producer = gleaner_kafka::producer(&cfg, &brokers).unwrap();
    let article = |id: &str| harbour_article(id, &format!("http://x.test/{id}"));
    let produce = |a: Article| {
        let (producer, cfg) = (&producer, &cfg);
        async move { produce_article(producer, cfg, "x.test", &a).await }
    };
    let count = |t: &str| read_topic(&brokers, &format!("{prefix}.{t}")).len();
    let wait_for = |t: &'static str, n: usize| {
        let b = brokers.clone();
        let p = prefix.clone();
        async move {
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                let (b2, p2) = (b.clone(), p.clone());
                let got = tokio::task::spawn_blocking(move || {
                    read_topic(&b2, &format!("{p2}.{t}")).len()
                })
                .await
                .unwrap();
                if got >= n {
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "{t} never reached {n} (has {got})"
                );
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
    };
    let mut dedup = gleaner(&["dedup"], &cfg_path, &brokers)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    produce(article("original")).await;
    wait_for("unique", 1).await;
    Command::new("kill")
        .args(["-TERM", &dedup.id().to_string()])
        .status()
        .unwrap();
    assert!(dedup.wait().unwrap().success());
    let mut dedup = gleaner(&["dedup"], &cfg_path, &brokers)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    produce(article("repost")).await;
    wait_for("duplicates", 1).await;
    Command::new("kill")
        .args(["-TERM", &dedup.id().to_string()])
        .status()
        .unwrap();
    assert!(dedup.wait().unwrap().success());
    let dups: Vec<Duplicate> = read_topic(&brokers, &format!("{prefix}.duplicates"))
        .iter()
        .map(|p| serde_json::from_slice(p).unwrap())
        .collect();
    assert_eq!(dups.len(), 1);
    assert_eq!(
        (dups[0].id.as_str(), dups[0].original_id.as_str()),
        ("repost", "original")
    );
    assert_eq!(count("unique"), 1);
}

/// Site rules on the compacted rules topic apply after a restart of the
/// extract service, although its consumer group had already read them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_site_rules_survive_restart() {
    let Some(brokers) = test_brokers("kafka_site_rules_survive_restart") else {
        return;
    };
    use gleaner_core::messages::{Block, Cleaned, PageMeta, SiteRules};
    use gleaner_core::stage::Output;
    use gleaner_core::Topic;
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg_path, cfg) = kafka_test_config(tmp.path(), "rules", &brokers).await;
    let producer = gleaner_kafka::producer(&cfg, &brokers).unwrap();
    let rules = SiteRules {
        host: "rules.test".into(),
        exclude_text: vec!["SPONSORED".into()],
        ..SiteRules::default()
    };
    gleaner_kafka::produce_all(
        &producer,
        &cfg,
        &[Output::of(Topic::RULES, "rules.test", &rules)],
    )
    .await
    .unwrap();
    let stop = |mut child: std::process::Child| {
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(child.wait().unwrap().success());
    };
    // A first extract reads the rules through its consumer group and stops.
    let first = gleaner(&["extract"], &cfg_path, &brokers)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_secs(6)).await;
    stop(first);
    // The restarted one must still know them.
    let second = gleaner(&["extract"], &cfg_path, &brokers)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let para = "The harbour bridge reopened to traffic on Monday after eight months of repairs that cost the city more \
                than forty million dollars, and commuters were glad.";
    let block = |text: &str, path: &str| Block {
        text: text.into(),
        path: path.into(),
        tag: "p".into(),
        text_len: text.chars().count() as u32,
        ..Block::default()
    };
    let page = Cleaned {
        id: "r1".into(),
        url: "http://rules.test/story".into(),
        final_url: "http://rules.test/story".into(),
        fetched_at: String::new(),
        title: "Bridge".into(),
        meta: PageMeta::default(),
        blocks: vec![
            block(para, "html/body/article/p"),
            block("SPONSORED: buy a boat from our partners today, with free delivery to the harbour.", "html/body/article/p"),
            block(
                "Engineers replaced the corroded suspension cables and resurfaced the deck, and the mayor said the \
                 work would keep the bridge safe for another fifty years.",
                "html/body/article/p",
            ),
        ],
    };
    gleaner_kafka::produce_all(
        &producer,
        &cfg,
        &[Output::of(Topic::CLEANED, "rules.test", &page)],
    )
    .await
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let article: Article = loop {
        let (b, t) = (brokers.clone(), format!("{prefix}.articles"));
        let got = tokio::task::spawn_blocking(move || read_topic(&b, &t))
            .await
            .unwrap();
        if let Some(p) = got.first() {
            break serde_json::from_slice(p).unwrap();
        }
        assert!(Instant::now() < deadline, "no article");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    stop(second);
    assert!(
        article.text.contains("harbour bridge reopened"),
        "{}",
        article.text
    );
    assert!(
        !article.text.contains("SPONSORED"),
        "the rule was forgotten: {}",
        article.text
    );
}
