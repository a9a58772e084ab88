//! Delivery under faults, one process per stage on the dev broker: a stage
//! dies at the worst moment (GLEANER_CRASH_AT aborts it there, as kill -9
//! would) and is started again; nothing is lost, and no topic a user reads
//! carries an article twice. The whole matrix (every stage, three restart
//! delays, the broker) is scripts/chaos.sh.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[&str], cfg: &Path, brokers: &str, log: &Path, crash: Option<&str>) -> Child {
    let mut c = gleaner(args, cfg, brokers);
    if let Some(at) = crash {
        c.env("GLEANER_CRASH_AT", at);
    }
    c.stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t0.elapsed() < within, "process did not exit in {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    wait_exit(child, Duration::from_secs(60));
}

/// The id of a record on unique, summarized or duplicates.
fn id_of(record: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(record).unwrap();
    v["id"].as_str().unwrap_or_default().to_string()
}

/// Ids that appear more than once on a topic.
fn doubled(brokers: &str, topic: &str) -> Vec<String> {
    let mut n: BTreeMap<String, usize> = BTreeMap::new();
    for r in read_topic(brokers, topic) {
        *n.entry(id_of(&r)).or_default() += 1;
    }
    n.into_iter()
        .filter(|(_, c)| *c > 1)
        .map(|(id, _)| id)
        .collect()
}

/// Fetch dies after fetching a batch and before producing its pages: the
/// URLs of that batch were not yet recorded as fetched, so the restarted
/// fetch (same state directory) takes them again from the replayed topics
/// and every page reaches the pages topic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_fetch_killed_between_fetch_and_acknowledgement_loses_nothing() {
    let Some(brokers) = test_brokers("kafka_fetch_killed_between_fetch_and_acknowledgement") else {
        return;
    };
    const PAGES: usize = 30;
    let (base, log) = linked_site(PAGES, 20).await;
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg, _) = kafka_test_config(tmp.path(), "crashfetch", &brokers).await;
    edit_config(&cfg, &[("batch_max = 64 ", "batch_max = 4 ")]);
    let state = tmp.path().join("state").to_string_lossy().into_owned();
    let args = ["fetch", "--allow-private", "--state", &state];
    let mut fetch = spawn(
        &args,
        &cfg,
        &brokers,
        &tmp.path().join("fetch-1.log"),
        Some("fetch:before-produce:3"),
    );
    assert!(gleaner(&["seed", &format!("{base}/")], &cfg, &brokers)
        .status()
        .unwrap()
        .success());
    let status = wait_exit(&mut fetch, Duration::from_secs(120));
    assert!(!status.success(), "fetch was to abort at the crash point");
    let before: BTreeSet<String> = log.lock().unwrap().iter().cloned().collect();
    let mut fetch = spawn(&args, &cfg, &brokers, &tmp.path().join("fetch-2.log"), None);
    let all: BTreeSet<String> = (0..PAGES).map(|i| format!("/p/{i}")).collect();
    let url_of = |r: &Vec<u8>| {
        let v: serde_json::Value = serde_json::from_slice(r).unwrap();
        v["url"]
            .as_str()
            .unwrap()
            .trim_start_matches(&base)
            .to_string()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let on_topic = loop {
        let pages: BTreeSet<String> = read_topic(&brokers, &format!("{prefix}.pages"))
            .iter()
            .map(url_of)
            .collect();
        if all.is_subset(&pages) || Instant::now() > deadline {
            break pages;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    stop(&mut fetch);
    let missing: Vec<_> = all.difference(&on_topic).collect();
    let log_text = std::fs::read_to_string(tmp.path().join("fetch-2.log")).unwrap_or_default();
    assert!(missing.is_empty(), "pages lost: {missing:?}\n{log_text}");
    // The batch that died was fetched before the crash and again after.
    let requests = log.lock().unwrap().clone();
    let twice: Vec<_> = before
        .iter()
        .filter(|p| p.starts_with("/p/") && requests.iter().filter(|r| r == p).count() > 1)
        .collect();
    assert!(!twice.is_empty(), "the crash was to come after fetching");
    eprintln!(
        "crash before producing: {} URL(s) fetched again, none lost",
        twice.len()
    );
}

/// The same crash in a chain (`gleaner stage fetch+clean+extract`): the
/// pages of the batch that died were never written anywhere, and the
/// restarted chain fetches them again, so every page still ends as an
/// article, and only a page fetched again (its article produced but not
/// yet acknowledged at the crash) can be there twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_chain_killed_before_producing_loses_nothing() {
    let Some(brokers) = test_brokers("kafka_chain_killed_before_producing") else {
        return;
    };
    const PAGES: usize = 30;
    let (base, log) = linked_site(PAGES, 20).await;
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg, _) = kafka_test_config(tmp.path(), "crashchain", &brokers).await;
    edit_config(&cfg, &[("batch_max = 64 ", "batch_max = 4 ")]);
    let state = tmp.path().join("state").to_string_lossy().into_owned();
    let args = [
        "stage",
        "fetch+clean+extract",
        "--allow-private",
        "--state",
        &state,
    ];
    let mut chain = spawn(
        &args,
        &cfg,
        &brokers,
        &tmp.path().join("chain-1.log"),
        Some("fetch:before-produce:3"),
    );
    assert!(gleaner(&["seed", &format!("{base}/")], &cfg, &brokers)
        .status()
        .unwrap()
        .success());
    let status = wait_exit(&mut chain, Duration::from_secs(120));
    assert!(
        !status.success(),
        "the chain was to abort at the crash point"
    );
    let mut chain = spawn(&args, &cfg, &brokers, &tmp.path().join("chain-2.log"), None);
    let all: BTreeSet<String> = (0..PAGES).map(|i| format!("{base}/p/{i}")).collect();
    // The site's pages are prose: each is an article.
    let answered = || -> Vec<String> {
        read_topic(&brokers, &format!("{prefix}.articles"))
            .iter()
            .filter_map(|r| {
                let v: serde_json::Value = serde_json::from_slice(r).ok()?;
                Some(v["url"].as_str()?.to_string())
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let got: BTreeSet<String> = answered().into_iter().collect();
        if all.is_subset(&got) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    stop(&mut chain);
    let got: BTreeSet<String> = answered().into_iter().collect();
    let missing: Vec<_> = all.difference(&got).collect();
    let log_text = std::fs::read_to_string(tmp.path().join("chain-2.log")).unwrap_or_default();
    assert!(missing.is_empty(), "pages lost: {missing:?}\n{log_text}");
    for topic in ["pages", "cleaned"] {
        assert!(read_topic(&brokers, &format!("{prefix}.{topic}")).is_empty());
    }
    let requests = log.lock().unwrap().clone();
    let fetched_again = |url: &str| {
        let path = url.strip_prefix(base.as_str()).unwrap_or(url);
        requests.iter().filter(|r| *r == path).count() > 1
    };
    let again = all.iter().filter(|u| fetched_again(u)).count();
    assert!(again > 0, "the crash was to come after fetching");
    // A crash replays at most the batches in flight: a page whose article
    // was produced but not yet acknowledged is fetched again, and its
    // article (fetched anew, so not the same record) is on `articles`
    // twice, for dedup to recognise (DESIGN: no topic a user reads carries
    // it twice). A page fetched once is there once.
    let mut per_url: BTreeMap<String, usize> = BTreeMap::new();
    for url in answered() {
        *per_url.entry(url).or_default() += 1;
    }
    let doubled_once_fetched: Vec<_> = per_url
        .iter()
        .filter(|(u, c)| **c > 1 && !fetched_again(u))
        .collect();
    assert!(
        doubled_once_fetched.is_empty(),
        "articles twice of pages fetched once: {doubled_once_fetched:?}"
    );
    eprintln!("chain crash before producing: {again} page(s) fetched again, none lost");
}

/// Summarize dies after its outputs were acknowledged and before its input
/// offsets were committed, and comes back 6 s later, inside its old
/// session (kafka.session_timeout_ms, 45 s): with static membership it
/// gets its partitions back at once, the replayed inputs' summaries are
/// recognised by the replay guard, and unique, summarized and duplicates
/// carry each article once. `gleaner status` then shows no lag.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_stage_restarted_inside_its_session_resumes_without_doubles() {
    let Some(brokers) = test_brokers("kafka_stage_restarted_inside_its_session") else {
        return;
    };
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg, _) = kafka_test_config(tmp.path(), "crashsum", &brokers).await;
    edit_config(&cfg, &[("batch_max = 64 ", "batch_max = 2 ")]);
    let data = tmp.path().join("data").to_string_lossy().into_owned();
    let log = |n: &str| tmp.path().join(format!("{n}.log"));
    let mut children: Vec<(&str, Child)> = Vec::new();
    for args in [
        vec!["fetch", "--allow-private"],
        vec!["clean"],
        vec!["extract"],
        vec!["dedup"],
        vec!["stories"],
        vec!["index", "--data", &data],
    ] {
        children.push((args[0], spawn(&args, &cfg, &brokers, &log(args[0]), None)));
    }
    let mut summarize = spawn(
        &["summarize"],
        &cfg,
        &brokers,
        &log("summarize-1"),
        Some("summarize:after-produce:2"),
    );
    assert!(gleaner(&["seed", &format!("{base}/")], &cfg, &brokers)
        .status()
        .unwrap()
        .success());
    let status = wait_exit(&mut summarize, Duration::from_secs(180));
    assert!(
        !status.success(),
        "summarize was to abort at the crash point"
    );
    tokio::time::sleep(Duration::from_secs(6)).await;
    let restarted = Instant::now();
    let mut summarize = spawn(&["summarize"], &cfg, &brokers, &log("summarize-2"), None);
    let index = tmp.path().join("data").join("index");
    let deadline = Instant::now() + Duration::from_secs(120);
    let docs = loop {
        let docs = gleaner_index::SearchIndex::open(&index, 200)
            .map(|s| s.num_docs())
            .unwrap_or(0);
        if docs >= ARTICLES.len() as u64 || Instant::now() > deadline {
            break docs;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let recovered = restarted.elapsed();
    // The outputs of the batches in flight at the crash may have been all
    // there was: the index can be complete before the restarted stage has
    // taken the replayed inputs (and recognised their outputs).
    let deadline = Instant::now() + Duration::from_secs(60);
    let second = loop {
        let second = std::fs::read_to_string(log("summarize-2")).unwrap_or_default();
        if second.contains("replayed records not produced again") || Instant::now() > deadline {
            break second;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert!(
        docs >= ARTICLES.len() as u64,
        "{docs} of {} indexed after the restart\n{second}",
        ARTICLES.len()
    );
    assert!(second.contains("partitions assigned"), "{second}");
    eprintln!(
        "summarize restarted 6 s after dying: all articles indexed {:.1} s later",
        recovered.as_secs_f64()
    );
    // Lag drains to zero for every stage (commits are asynchronous).
    let mut lagging = String::new();
    for _ in 0..40 {
        let out = gleaner(&["status"], &cfg, &brokers).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        lagging = text
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some("total"))
            .filter(|l| l.split_whitespace().nth(2) != Some("0"))
            .map(str::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        if lagging.is_empty() {
            let unique = format!("{prefix}.grouped[");
            // Unnamed, an instance takes the host's name.
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
            let owner = format!("summarize/{}", host.trim());
            let owned = text
                .lines()
                .filter(|l| l.contains(&unique) && l.contains(&owner))
                .count();
            assert!(
                owned >= 1 && !text.contains("(stale)"),
                "owner shown:\n{text}"
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(lagging.is_empty(), "lag left:\n{lagging}");
    stop(&mut summarize);
    for (_, c) in &mut children {
        stop(c);
    }
    for topic in ["unique", "summarized", "duplicates"] {
        let twice = doubled(&brokers, &format!("{prefix}.{topic}"));
        assert!(
            twice.is_empty(),
            "{topic} carries {twice:?} twice\n{second}"
        );
    }
    assert!(
        second.contains("replayed records not produced again"),
        "the replay was to be recognised:\n{second}\nbefore the crash:\n{}",
        std::fs::read_to_string(log("summarize-1")).unwrap_or_default()
    );
}

/// `/health` tells the truth: 503 with the reason while the broker is out
/// of reach, 200 once the stage owns its partitions; `/metrics` carries
/// HELP and TYPE lines and the partitions-owned gauge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_health_says_why_a_stage_is_not_serving() {
    let Some(brokers) = test_brokers("kafka_health_says_why_a_stage_is_not_serving") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (_prefix, cfg, _) = kafka_test_config(tmp.path(), "health", &brokers).await;
    let log = |n: &str| tmp.path().join(format!("{n}.log"));

    // Nothing listens where this stage looks for its broker.
    let nowhere = free_addr();
    let addr = free_addr();
    let mut lost = spawn(
        &["clean", "--metrics", &addr],
        &cfg,
        &nowhere,
        &log("lost"),
        None,
    );
    let health = format!("http://{addr}/health");
    let got = http_until(&health, Duration::from_secs(30), |s, b| {
        s == 503 && b.contains("broker unreachable")
    })
    .await;
    stop(&mut lost);
    let (status, body) = got.expect("no /health answer");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("clean: broker unreachable"), "{body}");

    let addr = free_addr();
    let mut clean = spawn(
        &["clean", "--metrics", &addr],
        &cfg,
        &brokers,
        &log("clean"),
        None,
    );
    let got = http_until(
        &format!("http://{addr}/health"),
        Duration::from_secs(60),
        |s, _| s == 200,
    )
    .await;
    let metrics = http_get(&format!("http://{addr}/metrics")).await;
    stop(&mut clean);
    let (status, body) = got.expect("no /health answer");
    assert_eq!(
        (status, body.as_str()),
        (200, "ok\n"),
        "{}",
        std::fs::read_to_string(log("clean")).unwrap_or_default()
    );
    let (_, text) = metrics.unwrap();
    assert!(
        text.contains("# TYPE gleaner_kafka_partitions_owned gauge"),
        "{text}"
    );
    let owned = text
        .lines()
        .find(|l| l.starts_with("gleaner_kafka_partitions_owned{stage=\"clean\"}"))
        .and_then(|l| l.rsplit(' ').next()?.parse::<f64>().ok());
    assert!(owned.is_some_and(|n| n >= 1.0), "{text}");
}
