//! End to end: the example news site (examples/site) served by a real HTTP
//! server on loopback, crawled by `gleaner run` and by one process per stage
//! on a real Kafka-protocol broker (GLEANER_TEST_BROKERS, started by
//! scripts/test.sh). Both must give the same result:
//! - every article is searchable by a phrase from its body;
//! - the repost is in `duplicates` and is not a second hit, while a
//!   different report of the same event is kept;
//! - navigation, sidebar and footer text is in no article;
//! - the path robots.txt disallows was never requested;
//! - no message is lost: the counts on every topic add up.

use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use gleaner_core::messages::{Article, DeadLetter, Duplicate};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const GLEANER: &str = env!("CARGO_BIN_EXE_gleaner");

/// (path, phrase from its body) of every article on the site.
const ARTICLES: &[(&str, &str)] = &[
    (
        "/news/bridge-reopens.html",
        "replaced the corroded suspension cables",
    ),
    (
        "/news/bridge-commuters.html",
        "Ferry queues vanished overnight",
    ),
    (
        "/news/library-archive.html",
        "seventeenth century sea charts",
    ),
    ("/news/fishing-quota.html", "cut their cod catch by a fifth"),
    ("/news/robotics-club.html", "sorted recycled bottles faster"),
    ("/news/market-hall.html", "whose iron roof has leaked"),
];
const REPOST: &str = "/opinion/bridge-repost.html";
const BOILERPLATE: &[&str] = &[
    "All rights reserved",
    "Registered in Port Ellis",
    "Most read",
    "Subscribe for unlimited access",
    "Columnists",
    "Share Tweet Email",
    "Business",
    "Culture",
];

fn site_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

type Log = Arc<Mutex<Vec<String>>>;

async fn serve_file(State(log): State<Log>, uri: Uri) -> Response {
    let path = uri.path().to_string();
    let served = {
        let mut log = log.lock().unwrap();
        log.push(path.clone());
        log.len()
    };
    let rel = if path == "/" {
        "index.html".to_string()
    } else {
        path.trim_start_matches('/').to_string()
    };
    let file = site_dir().join(&rel);
    match (rel.contains(".."), std::fs::read(&file)) {
        (false, Ok(mut bytes)) => {
            let ct = if rel.ends_with(".txt") {
                "text/plain"
            } else {
                // Each response differs, as on most real sites, so that a
                // recrawl is not skipped as an unchanged body.
                bytes.extend(format!("<!-- response {served} -->").as_bytes());
                "text/html; charset=utf-8"
            };
            Response::builder()
                .header("content-type", ct)
                .body(Body::from(bytes))
                .unwrap()
        }
        _ => Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(Body::from("not found"))
            .unwrap(),
    }
}

/// Serves the example site on a free loopback port; returns its base URL
/// and the log of requested paths.
async fn start_site() -> (String, Log) {
    let log: Log = Arc::default();
    let app = axum::Router::new()
        .fallback(serve_file)
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), log)
}

/// The bundled config with test settings: no politeness delay, loopback
/// allowed, and (for Kafka) topic and group names unique to this run.
fn test_config(dir: &Path, topic_prefix: Option<&str>) -> PathBuf {
    let mut text = gleaner_core::config::DEFAULT_TOML
        .replace("per_host_delay_ms = 1000", "per_host_delay_ms = 10")
        .replace("bloom_capacity = 10000000", "bloom_capacity = 100000")
        .replace("partitions = 4 ", "partitions = 2 ");
    if let Some(p) = topic_prefix {
        text = text.replace("= \"gleaner.", &format!("= \"{p}.")).replace(
            "group_prefix = \"gleaner\"",
            &format!("group_prefix = \"{p}\""),
        );
    }
    let path = dir.join("pipelines.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The summary a `gleaner run` that must have succeeded left in `data`.
fn run_summary(out: &std::process::Output, data: &Path) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(data.join("summary.json")).unwrap()).unwrap()
}

fn search(cfg: &Path, data: &Path, query: &str) -> Vec<serde_json::Value> {
    let out = Command::new(GLEANER)
        .args(["search", "--json", "--limit", "20", "--config"])
        .arg(cfg)
        .arg("--data")
        .arg(data)
        .arg(query)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "search failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What a run left behind, gathered the same way for both modes.
struct Outcome {
    produced: BTreeMap<String, u64>,
    articles: Vec<Article>,
    duplicates: Vec<Duplicate>,
    dead_letters: Vec<DeadLetter>,
    index_docs: u64,
}

/// The checks both modes must pass.
fn check(base: &str, log: &Log, cfg: &Path, data: &Path, o: &Outcome) {
    let url = |p: &str| format!("{base}{p}");
    // Every article is searchable by a phrase from its body, exactly once.
    for (path, phrase) in ARTICLES {
        let hits = search(cfg, data, &format!("\"{phrase}\""));
        let urls: Vec<&str> = hits.iter().map(|h| h["url"].as_str().unwrap()).collect();
        assert_eq!(urls, vec![url(path)], "phrase {phrase:?}");
        for field in ["id", "url", "title", "score", "snippet"] {
            assert!(hits[0].get(field).is_some(), "hit lacks {field}");
        }
    }
    // The repost is a duplicate of the original and not a second hit.
    let reposts: Vec<&Duplicate> = o
        .duplicates
        .iter()
        .filter(|d| d.url == url(REPOST))
        .collect();
    assert_eq!(reposts.len(), 1, "duplicates: {:?}", o.duplicates);
    assert_eq!(reposts[0].original_url, url("/news/bridge-reopens.html"));
    assert_eq!(
        o.duplicates.len(),
        1,
        "only the repost is a duplicate: {:?}",
        o.duplicates
    );
    assert!(search(cfg, data, "corroded suspension cables")
        .iter()
        .all(|h| h["url"] != url(REPOST).as_str()));
    // No boilerplate in any article, nor anywhere in the index.
    assert!(!o.articles.is_empty());
    for a in &o.articles {
        for b in BOILERPLATE {
            assert!(!a.text.contains(b), "{} kept {b:?}:\n{}", a.url, a.text);
        }
    }
    for b in BOILERPLATE {
        assert!(
            search(cfg, data, &format!("\"{b}\"")).is_empty(),
            "{b:?} is searchable"
        );
    }
    // robots.txt was honoured.
    let requested: Vec<String> = log.lock().unwrap().clone();
    assert!(requested.iter().any(|p| p == "/robots.txt"));
    assert!(
        !requested.iter().any(|p| p.starts_with("/private/")),
        "requested: {requested:?}"
    );
    assert!(
        o.dead_letters
            .iter()
            .any(|d| d.error.contains("robots.txt")),
        "the disallowed link is recorded"
    );
    // No message lost: every topic's count follows from the one before.
    let n = |t: &str| o.produced.get(t).copied().unwrap_or(0);
    let dead = |stage: &str| o.dead_letters.iter().filter(|d| d.stage == stage).count() as u64;
    let fetched: BTreeSet<&String> = requested.iter().filter(|p| *p != "/robots.txt").collect();
    assert_eq!(
        n("pages") + dead("fetch") - 1,
        fetched.len() as u64,
        "each requested page is a page or a dead letter (+1 robots)"
    );
    assert_eq!(n("cleaned"), n("pages"));
    assert_eq!(n("articles") + dead("extract"), n("cleaned"));
    assert_eq!(n("articles"), o.articles.len() as u64);
    assert_eq!(n("unique") + n("duplicates"), n("articles"));
    assert_eq!(n("summarized"), n("unique"));
    assert_eq!(o.index_docs, n("summarized"));
    assert_eq!(o.index_docs, ARTICLES.len() as u64);
    assert_eq!(
        dead("clean") + dead("dedup") + dead("summarize") + dead("index"),
        0,
        "{:?}",
        o.dead_letters
    );
}

fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `gleaner run` over the example site from its front page, to the end.
async fn run_on_site(cfg: &Path, data: &Path, base: &str) -> std::process::Output {
    let (cfg, data, seed) = (cfg.to_path_buf(), data.to_path_buf(), format!("{base}/"));
    tokio::task::spawn_blocking(move || {
        Command::new(GLEANER)
            .args(["run", "--allow-private", "--config"])
            .arg(&cfg)
            .arg("--data")
            .arg(&data)
            .args(["--seeds", &seed])
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_end_to_end() {
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let started = Instant::now();
    let out = run_on_site(&cfg, &data, &base).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "gleaner run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "gleaner run took {:.2}s:\n{stdout}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        stdout.contains("pages fetched")
            && stdout.contains("duplicates")
            && stdout.contains("indexed")
    );

    let summary = run_summary(&out, &data);
    let outcome = Outcome {
        produced: serde_json::from_value(summary["produced"].clone()).unwrap(),
        articles: read_jsonl(&data.join("articles.jsonl")),
        duplicates: read_jsonl(&data.join("duplicates.jsonl")),
        dead_letters: read_jsonl(&data.join("dead-letter.jsonl")),
        index_docs: gleaner_index::SearchIndex::open(&data.join("index"), 200)
            .unwrap()
            .num_docs(),
    };
    check(&base, &log, &cfg, &data, &outcome);
}

/// With summarize before dedup in `[pipeline] stages`, every article is
/// summarized (the repost too), dedup still drops the repost, and the index
/// gets the unique articles with their summaries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_can_summarize_before_dedup() {
    let (base, _log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let text = std::fs::read_to_string(&cfg).unwrap();
    let dedup_first = r#"stages = ["fetch", "clean", "extract", "dedup", "summarize", "index"]"#;
    assert!(text.contains(dedup_first));
    std::fs::write(
        &cfg,
        text.replace(
            dedup_first,
            r#"stages = ["fetch", "clean", "extract", "summarize", "dedup", "index"]"#,
        ),
    )
    .unwrap();
    let data = tmp.path().join("data");
    let out = run_on_site(&cfg, &data, &base).await;
    let summary = run_summary(&out, &data);
    let n = |t: &str| summary["produced"][t].as_u64().unwrap_or(0);
    assert_eq!(n("summarized"), n("articles"), "{summary}");
    assert_eq!(n("duplicates"), 1, "{summary}");
    assert_eq!(n("unique") + n("duplicates"), n("articles"), "{summary}");
    assert_eq!(summary["index_docs"].as_u64(), Some(n("unique")));
    assert_eq!(n("unique"), ARTICLES.len() as u64);
    for (path, phrase) in ARTICLES {
        let hits = search(&cfg, &data, &format!("\"{phrase}\""));
        assert_eq!(hits.len(), 1, "phrase {phrase:?}");
        assert_eq!(hits[0]["url"], format!("{base}{path}"));
        let summaries = hits[0]["summaries"].as_array().map_or(0, Vec::len);
        assert!(summaries > 0, "no summaries for {path}: {}", hits[0]);
    }
}

/// `gleaner run --every SECS` keeps running and fetches its seeds again on
/// schedule until it is interrupted, then ends cleanly with its summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_run_recrawls_on_schedule_until_interrupted() {
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let child = Command::new(GLEANER)
        .args([
            "run",
            "--allow-private",
            "--depth",
            "0",
            "--every",
            "1",
            "--config",
        ])
        .arg(&cfg)
        .arg("--data")
        .arg(&data)
        .args(["--seeds", &format!("{base}{}", ARTICLES[0].0)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(3600)).await;
    let fetched = log
        .lock()
        .unwrap()
        .iter()
        .filter(|p| *p == ARTICLES[0].0)
        .count();
    assert!(
        fetched >= 3,
        "the seed was fetched {fetched} times in 3.6 s"
    );
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let summary = run_summary(&out, &data);
    assert!(
        summary["produced"]["pages"].as_u64().unwrap() >= 3,
        "{summary}"
    );
    // Every fetch is extracted again (the site's template learned from the
    // stream does not swallow a page seen before) and updates one document.
    assert!(
        summary["produced"]["articles"].as_u64().unwrap() >= 3,
        "{summary}"
    );
    assert_eq!(
        summary["produced"]["dead-letter"].as_u64(),
        Some(0),
        "{summary}"
    );
    assert_eq!(summary["index_docs"].as_u64(), Some(1), "{summary}");
}

/// Every record on a topic, read from the beginning of each partition.
fn read_topic(brokers: &str, topic: &str) -> Vec<Vec<u8>> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::error::KafkaError;
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("e2e-reader-{}", unique()))
        .set("enable.partition.eof", "true")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let md = c
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .unwrap();
    let parts = md.topics()[0].partitions().len();
    assert!(parts > 0, "topic {topic} has no partitions");
    let mut tpl = TopicPartitionList::new();
    for p in 0..parts {
        tpl.add_partition_offset(topic, p as i32, Offset::Beginning)
            .unwrap();
    }
    c.assign(&tpl).unwrap();
    let (mut eof, mut out) = (BTreeSet::new(), Vec::new());
    let mut last = Instant::now();
    // Until every partition reports its end, or nothing came for 5 s.
    while eof.len() < parts && last.elapsed() < Duration::from_secs(5) {
        match c.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                out.push(m.payload().unwrap_or_default().to_vec());
                last = Instant::now();
            }
            Some(Err(KafkaError::PartitionEOF(p))) => {
                eof.insert(p);
            }
            Some(Err(e)) => panic!("reading {topic}: {e}"),
            None => {}
        }
    }
    out
}

/// The broker scripts/test.sh started, or `None` (with a note) outside it;
/// under CI a missing broker is a failure, not a skip.
fn test_brokers(test: &str) -> Option<String> {
    match std::env::var("GLEANER_TEST_BROKERS") {
        Ok(b) => Some(b),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs {test} against a broker: use scripts/test.sh"
            );
            eprintln!("SKIPPED {test}: GLEANER_TEST_BROKERS is not set (scripts/test.sh sets it)");
            None
        }
    }
}

/// A test config with topics of its own (prefix `name` + a unique
/// suffix), created on the broker: the prefix, the file and the config.
async fn kafka_test_config(
    dir: &Path,
    name: &str,
    brokers: &str,
) -> (String, PathBuf, gleaner_core::Config) {
    let prefix = format!("{name}{}", unique());
    let path = test_config(dir, Some(&prefix));
    let cfg = gleaner_core::Config::load(Some(&path)).unwrap();
    gleaner_core::kafka::create_topics(&cfg, brokers, &gleaner_core::Topic::BUILT_IN)
        .await
        .unwrap();
    (prefix, path, cfg)
}

fn unique() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    format!("{}{}", t.as_secs(), t.subsec_nanos())
}

fn gleaner(args: &[&str], cfg: &Path, brokers: &str) -> Command {
    let mut c = Command::new(GLEANER);
    c.args(args)
        .arg("--config")
        .arg(cfg)
        .args(["--brokers", brokers]);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_services_end_to_end() {
    let Some(brokers) = test_brokers("kafka_services_end_to_end") else {
        return;
    };
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let prefix = format!("e2e{}", unique());
    let cfg = test_config(tmp.path(), Some(&prefix));
    let data = tmp.path().join("data");
    let topics = gleaner(&["topics"], &cfg, &brokers).output().unwrap();
    assert!(
        topics.status.success(),
        "topics: {}",
        String::from_utf8_lossy(&topics.stderr)
    );

    let started = Instant::now();
    let data_arg = data.to_string_lossy().into_owned();
    let services: Vec<Vec<&str>> = vec![
        vec!["fetch", "--allow-private"],
        vec!["clean"],
        vec!["extract"],
        vec!["dedup"],
        vec!["summarize"],
        vec!["index", "--data", &data_arg],
    ];
    let mut children = Vec::new();
    for args in &services {
        let log_file = std::fs::File::create(tmp.path().join(format!("{}.log", args[0]))).unwrap();
        let child = gleaner(args, &cfg, &brokers)
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .unwrap();
        children.push((args[0], child));
    }
    let seed = gleaner(&["seed", &format!("{base}/")], &cfg, &brokers)
        .output()
        .unwrap();
    assert!(
        seed.status.success(),
        "seed: {}",
        String::from_utf8_lossy(&seed.stderr)
    );

    // Wait until every article is searchable and the topics stop moving.
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut docs = 0;
    while Instant::now() < deadline {
        docs = gleaner_index::SearchIndex::open(&data.join("index"), 200)
            .map(|s| s.num_docs())
            .unwrap_or(0);
        if docs >= ARTICLES.len() as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let searchable = started.elapsed();
    let logs = |tmp: &Path| {
        services
            .iter()
            .map(|a| {
                format!(
                    "--- {}\n{}",
                    a[0],
                    std::fs::read_to_string(tmp.join(format!("{}.log", a[0]))).unwrap_or_default()
                )
            })
            .collect::<String>()
    };
    assert_eq!(
        docs,
        ARTICLES.len() as u64,
        "not all articles indexed in time\n{}",
        logs(tmp.path())
    );
    eprintln!(
        "kafka: all {docs} articles searchable {:.2}s after the seed",
        searchable.as_secs_f64()
    );
    // Dead letters for 404s may still be on their way: wait for quiet.
    let count_all = |b: &str| -> u64 {
        ["pages", "dead-letter", "articles"]
            .iter()
            .map(|t| read_topic(b, &format!("{prefix}.{t}")).len() as u64)
            .sum()
    };
    let mut before = count_all(&brokers);
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let now = count_all(&brokers);
        if now == before {
            break;
        }
        before = now;
    }

    // Graceful shutdown: SIGTERM, and every service exits cleanly.
    for (name, child) in &mut children {
        let ok = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "signalling {name}");
    }
    for (name, child) in &mut children {
        let t0 = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "{name} did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(
            status.success(),
            "{name} exited with {status}\n{}",
            logs(tmp.path())
        );
    }

    let read = |t: &str| read_topic(&brokers, &format!("{prefix}.{t}"));
    let parse = |t: &str| -> Vec<serde_json::Value> {
        read(t)
            .iter()
            .map(|p| serde_json::from_slice(p).unwrap())
            .collect()
    };
    let mut produced = BTreeMap::new();
    for t in [
        "seeds",
        "frontier",
        "pages",
        "cleaned",
        "unique",
        "summarized",
    ] {
        produced.insert(t.to_string(), read(t).len() as u64);
    }
    let articles: Vec<Article> = parse("articles")
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    let duplicates: Vec<Duplicate> = parse("duplicates")
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    let dead_letters: Vec<DeadLetter> = parse("dead-letter")
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    produced.insert("articles".into(), articles.len() as u64);
    produced.insert("duplicates".into(), duplicates.len() as u64);
    produced.insert("dead-letter".into(), dead_letters.len() as u64);
    assert_eq!(produced["seeds"], 1);
    let o = Outcome {
        produced,
        articles,
        duplicates,
        dead_letters,
        index_docs: gleaner_index::SearchIndex::open(&data.join("index"), 200)
            .unwrap()
            .num_docs(),
    };
    check(&base, &log, &cfg, &data, &o);
}

/// Records up to `kafka.max_record_bytes` must come back from the broker
/// even when they barely compress (the dev broker was seen to acknowledge
/// larger records that consumers then never received), and a 4 MiB page of
/// HTML must fit in that limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_largest_records_round_trip() {
    let Some(brokers) = test_brokers("kafka_largest_records_round_trip") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, _, cfg) = kafka_test_config(tmp.path(), "big", &brokers).await;
    // Worst case: base64-like noise that lz4 cannot shrink.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let noise: Vec<u8> = (0..cfg.kafka.max_record_bytes)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % 64) as usize]
        })
        .collect();
    // A 4 MiB page of HTML as fetch would produce it.
    let para = "<p class=\"story\">The harbour bridge reopened to traffic on Monday after eight months of \"repairs\".</p>\n";
    let html: String = para.repeat((4 << 20) / para.len());
    let page = gleaner_core::messages::Page {
        id: "big".into(),
        url: "http://x.test/big".into(),
        final_url: "http://x.test/big".into(),
        status: 200,
        fetched_at: String::new(),
        charset: "UTF-8".into(),
        content_type: "text/html".into(),
        headers: BTreeMap::new(),
        depth: 0,
        html,
    };
    let page_out =
        gleaner_core::stage::Output::of(gleaner_core::Topic::PAGES, "x.test", &page).into_wire();
    assert!(
        page_out.payload.wire_len() <= cfg.kafka.max_record_bytes,
        "a 4 MiB page is {} bytes as JSON",
        page_out.payload.wire_len()
    );
    let noise_out = gleaner_core::stage::Output {
        topic: gleaner_core::Topic::PAGES,
        key: "x.test".into(),
        payload: noise.clone().into(),
    };
    let producer = gleaner_core::kafka::producer(&cfg, &brokers).unwrap();
    gleaner_core::kafka::produce_all(&producer, &cfg, &[page_out.clone(), noise_out])
        .await
        .unwrap();
    let back =
        tokio::task::spawn_blocking(move || read_topic(&brokers, &format!("{prefix}.pages")))
            .await
            .unwrap();
    let sizes: Vec<usize> = back.iter().map(Vec::len).collect();
    assert_eq!(sizes, vec![page_out.payload.wire_len(), noise.len()]);
    assert!(back[1] == noise);
}

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
    let log: Log = Arc::default();
    let l = log.clone();
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let l = l.clone();
        async move {
            let path = uri.path().to_string();
            l.lock().unwrap().push(path.clone());
            tokio::time::sleep(Duration::from_millis(60)).await;
            // Every page links to every page, as site navigation does, so
            // a fetcher that forgot what it completed would fetch it again.
            let links = (0..PAGES)
                .map(|i| format!("<a href='/p/{i}'>page {i}</a>"))
                .collect::<String>();
            let body = format!("<p>page {path}</p>{links}");
            Response::builder()
                .header("content-type", "text/html")
                .body(Body::from(body))
                .unwrap()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let tmp = tempfile::tempdir().unwrap();
    let prefix = format!("kill{}", unique());
    let cfg = test_config(tmp.path(), Some(&prefix));
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("batch_max = 64 ", &format!("batch_max = {BATCH} "));
    std::fs::write(&cfg, text).unwrap();
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
    let producer = gleaner_core::kafka::producer(&cfg, &brokers).unwrap();
    let article = |id: &str| {
        Article {
        id: id.into(),
        url: format!("http://x.test/{id}"),
        title: "Harbour bridge reopens".into(),
        author: None,
        date: None,
        language: None,
        text: "The harbour bridge reopened to traffic on Monday after eight months of repairs that cost the city \
               more than forty million dollars. Engineers replaced the corroded suspension cables."
            .into(),
        extractor: "auto".into(),
        fetched_at: String::new(),
        cluster: None,
    }
    };
    let produce = |a: Article| {
        let out = gleaner_core::stage::Output::of(gleaner_core::Topic::ARTICLES, "x.test", &a);
        let (producer, cfg) = (&producer, &cfg);
        async move {
            gleaner_core::kafka::produce_all(producer, cfg, &[out])
                .await
                .unwrap()
        }
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
    let producer = gleaner_core::kafka::producer(&cfg, &brokers).unwrap();
    let rules = SiteRules {
        host: "rules.test".into(),
        exclude_text: vec!["SPONSORED".into()],
        ..SiteRules::default()
    };
    gleaner_core::kafka::produce_all(
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
    gleaner_core::kafka::produce_all(
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
