//! What the end-to-end tests share: the example site on a real HTTP
//! server, configurations, the checks every run must pass, and the broker.
#![allow(dead_code)]

pub mod farm;
mod kafka;

pub use kafka::*;

use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use gleaner_core::messages::{Article, DeadLetter, Duplicate};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
pub const GLEANER: &str = env!("CARGO_BIN_EXE_gleaner");

/// (path, phrase from its body) of every article on the site.
pub const ARTICLES: &[(&str, &str)] = &[
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
pub const REPOST: &str = "/opinion/bridge-repost.html";
pub const BOILERPLATE: &[&str] = &[
    "All rights reserved",
    "Registered in Port Ellis",
    "Most read",
    "Subscribe for unlimited access",
    "Columnists",
    "Share Tweet Email",
    "Business",
    "Culture",
];

pub fn site_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

pub type Log = Arc<Mutex<Vec<String>>>;

pub async fn serve_file(State(log): State<Log>, uri: Uri) -> Response {
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
pub async fn start_site() -> (String, Log) {
    let log: Log = Arc::default();
    let app = axum::Router::new()
        .fallback(serve_file)
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), log)
}

/// A page of prose that is each page's own: words drawn from a small
/// vocabulary by a generator seeded with the host and page, so that each
/// is an article of its own (no two are reposts); `nav` goes in its `<nav>`.
pub fn prose_page(host: usize, page: usize, nav: &str) -> String {
    const WORDS: &[&str] = &[
        "harbour",
        "council",
        "ferry",
        "winter",
        "budget",
        "school",
        "river",
        "market",
        "bridge",
        "station",
        "library",
        "museum",
        "orchard",
        "festival",
        "railway",
        "hospital",
        "garden",
        "factory",
        "village",
        "island",
        "mountain",
        "election",
        "teacher",
        "farmer",
        "engineer",
        "pupils",
        "tenants",
        "workers",
        "visitors",
        "residents",
        "approved",
        "delayed",
        "repaired",
        "opened",
        "closed",
        "planned",
        "measured",
        "reported",
        "announced",
        "rejected",
        "quickly",
        "slowly",
        "finally",
        "again",
        "before",
        "after",
        "during",
        "because",
        "although",
        "while",
    ];
    let mut state = (host * 7919 + page * 104_729 + 1) as u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        WORDS[(state % WORDS.len() as u64) as usize]
    };
    let paragraphs: String = (0..6)
        .map(|_| {
            let words: Vec<&str> = (0..45).map(|_| next()).collect();
            format!("<p>The {}.</p>", words.join(" "))
        })
        .collect();
    format!(
        "<html><head><title>Report {host}-{page}</title></head><body>\
         <nav><a href='/'>Home</a>{nav}</nav><article><h1>Report {host}-{page}</h1>\
         {paragraphs}</article><footer>Town news</footer></body></html>"
    )
}

/// A site of `pages` pages under /p/ where every page links to every page
/// (as site navigation does, so a fetcher that forgot what it completed
/// would fetch it again), each an article of its own (`prose_page`) answered
/// after `delay_ms`; the log has every requested path.
pub async fn linked_site(pages: usize, delay_ms: u64) -> (String, Log) {
    use axum::http::Uri;
    let log: Log = Arc::default();
    let l = log.clone();
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let l = l.clone();
        async move {
            let path = uri.path().to_string();
            l.lock().unwrap().push(path.clone());
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            let links = (0..pages)
                .map(|i| format!("<a href='/p/{i}'>page {i}</a>"))
                .collect::<String>();
            let page = path
                .strip_prefix("/p/")
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(pages);
            let body = prose_page(0, page, &links);
            Response::builder()
                .header("content-type", "text/html")
                .body(Body::from(body))
                .unwrap()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, log)
}

/// The bundled config with test settings: no politeness delay, loopback
/// allowed, and (for Kafka) topic and group names unique to this run.
pub fn test_config(dir: &Path, topic_prefix: Option<&str>) -> PathBuf {
    let text = include_str!("../../pipelines.toml").to_string();
    let text = set(text, "per_host_delay_ms = 1000", "per_host_delay_ms = 10");
    let text = set(text, "bloom_capacity = 10000000", "bloom_capacity = 100000");
    let mut text = set(text, "\npartitions = 4\n", "\npartitions = 2\n");
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

/// `text` with `from` replaced by `to`, which it must hold: a comment
/// moved in pipelines.toml once left the tests on the shipped value
/// without a word.
pub fn set(text: String, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the configuration has no {from:?}");
    text.replace(from, to)
}

/// Rewrites the configuration file at `cfg` with each `(from, to)` of
/// `edits` applied by `set`.
pub fn edit_config(cfg: &Path, edits: &[(&str, &str)]) {
    let mut text = std::fs::read_to_string(cfg).unwrap();
    for (from, to) in edits {
        text = set(text, from, to);
    }
    std::fs::write(cfg, text).unwrap();
}

/// The summary a `gleaner run` that must have succeeded left in `data`.
/// A run that ended with pages that failed (status 3) is finished too.
pub fn run_summary(out: &std::process::Output, data: &Path) -> serde_json::Value {
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(data.join("summary.json")).unwrap()).unwrap()
}

pub fn search(cfg: &Path, data: &Path, query: &str) -> Vec<serde_json::Value> {
    search_shards(cfg, &[data.to_path_buf()], query)
}

/// `gleaner search --json` over the index of `data[0]`, or with more than
/// one, over the shards of all of them.
pub fn search_shards(cfg: &Path, data: &[PathBuf], query: &str) -> Vec<serde_json::Value> {
    let mut cmd = Command::new(GLEANER);
    cmd.args(["search", "--json", "--limit", "20", "--config"])
        .arg(cfg)
        .arg("--data")
        .arg(&data[0]);
    if data.len() > 1 {
        for d in data {
            cmd.arg("--shard").arg(d);
        }
    }
    let out = cmd.arg(query).output().unwrap();
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
pub struct Outcome {
    pub produced: BTreeMap<String, u64>,
    pub articles: Vec<Article>,
    pub duplicates: Vec<Duplicate>,
    pub dead_letters: Vec<DeadLetter>,
    /// Inputs passed over by design (robots.txt, not an article).
    pub skipped: Vec<DeadLetter>,
    /// Documents in the index (in every shard).
    pub index_docs: u64,
    /// The data directories of the index instances when there are several
    /// (each a shard, searched as one); empty: the one index in `data`.
    pub shards: Vec<PathBuf>,
}

/// The checks both modes must pass.
pub fn check(base: &str, log: &Log, cfg: &Path, data: &Path, o: &Outcome) {
    let url = |p: &str| format!("{base}{p}");
    let dirs = if o.shards.is_empty() {
        vec![data.to_path_buf()]
    } else {
        o.shards.clone()
    };
    let search = |q: &str| search_shards(cfg, &dirs, q);
    // Every article is searchable by a phrase from its body, exactly once.
    let mut stories = Vec::new();
    for (path, phrase) in ARTICLES {
        let hits = search(&format!("\"{phrase}\""));
        let urls: Vec<&str> = hits.iter().map(|h| h["url"].as_str().unwrap()).collect();
        assert_eq!(urls, vec![url(path)], "phrase {phrase:?}");
        for field in ["id", "url", "title", "score", "snippet", "story"] {
            assert!(hits[0].get(field).is_some(), "hit lacks {field}");
        }
        stories.push(hits[0]["story"].as_str().unwrap().to_string());
    }
    // The two reports of the bridge's reopening are one story (both kept
    // by dedup); every other article is a story of its own.
    assert_eq!(stories[0], stories[1], "the bridge's two reports");
    let distinct: std::collections::HashSet<&String> = stories.iter().collect();
    assert_eq!(distinct.len(), ARTICLES.len() - 1, "{stories:?}");
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
    // It is listed with the original's hit, as a copy.
    let hits = search("corroded suspension cables");
    assert!(hits.iter().all(|h| h["url"] != url(REPOST).as_str()));
    let original = hits
        .iter()
        .find(|h| h["url"] == url("/news/bridge-reopens.html").as_str())
        .expect("the original is a hit");
    assert_eq!(
        original["copy_urls"],
        serde_json::json!([url(REPOST)]),
        "{original}"
    );
    // No boilerplate in any article, nor anywhere in the index.
    assert!(!o.articles.is_empty());
    for a in &o.articles {
        for b in BOILERPLATE {
            assert!(!a.text.contains(b), "{} kept {b:?}:\n{}", a.url, a.text);
        }
    }
    for b in BOILERPLATE {
        assert!(
            search(&format!("\"{b}\"")).is_empty(),
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
    // The disallowed link is recorded as a skip, not a failure.
    assert!(
        o.skipped
            .iter()
            .any(|d| d.error.contains("robots.txt")
                && d.reason.as_deref() == Some("robots_disallowed")),
        "the disallowed link is recorded: {:?}",
        o.skipped
    );
    assert!(
        !o.dead_letters
            .iter()
            .any(|d| d.error.contains("robots.txt")),
        "{:?}",
        o.dead_letters
    );
    // No message lost: every topic's count follows from the one before.
    let n = |t: &str| o.produced.get(t).copied().unwrap_or(0);
    let dead = |stage: &str| o.dead_letters.iter().filter(|d| d.stage == stage).count() as u64;
    let skipped = |stage: &str| o.skipped.iter().filter(|d| d.stage == stage).count() as u64;
    assert_eq!(n("skipped"), o.skipped.len() as u64);
    let fetched: BTreeSet<&String> = requested.iter().filter(|p| *p != "/robots.txt").collect();
    // What a stage answered: its outputs, dead letters and skips.
    let answered = |stage: &str, outputs: u64| outputs + dead(stage) + skipped(stage);
    // Between stages chained as one service these topics are not
    // written: what crossed them was counted by the stages (the caller
    // puts it here).
    let (pages, cleaned, summarized) = (n("pages"), n("cleaned"), n("summarized"));
    assert_eq!(
        pages + dead("fetch") + skipped("fetch") - 1,
        fetched.len() as u64,
        "each requested page is a page, a dead letter or a skip (+1 robots)"
    );
    assert_eq!(cleaned, pages);
    assert_eq!(answered("extract", n("articles")), cleaned);
    // The site's index pages are not articles: passed over, not failed.
    assert_eq!(dead("extract"), 0, "{:?}", o.dead_letters);
    assert!(
        o.skipped
            .iter()
            .any(|d| d.stage == "extract" && d.reason.as_deref() == Some("not_article")),
        "{:?}",
        o.skipped
    );
    assert_eq!(n("articles"), o.articles.len() as u64);
    assert_eq!(n("unique") + n("duplicates"), n("articles"));
    assert_eq!(summarized, n("unique"));
    assert_eq!(o.index_docs, summarized);
    assert_eq!(o.index_docs, ARTICLES.len() as u64);
    assert_eq!(
        dead("clean") + dead("dedup") + dead("summarize") + dead("index"),
        0,
        "{:?}",
        o.dead_letters
    );
}

pub fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `cmd` to its end; it must succeed (its stderr said otherwise).
pub fn succeeded(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        cmd.get_args().collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `gleaner COMMAND ...` with `--config cfg` and, when given, `--data data`.
pub fn gleaner_on(cfg: &Path, data: Option<&Path>, args: &[&str]) -> Command {
    let mut c = Command::new(GLEANER);
    c.args(args).arg("--config").arg(cfg);
    if let Some(d) = data {
        c.arg("--data").arg(d);
    }
    c
}

/// `gleaner run --allow-private` on `cfg` and `data`, with `args` besides.
pub fn gleaner_run(cfg: &Path, data: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(GLEANER);
    c.args(["run", "--allow-private", "--config"])
        .arg(cfg)
        .arg("--data")
        .arg(data)
        .args(args);
    c
}

/// `gleaner run` over the example site from its front page, to the end.
pub async fn run_on_site(cfg: &Path, data: &Path, base: &str) -> std::process::Output {
    run_on_site_with(cfg, data, base, &[]).await
}

/// [`run_on_site`] with `args` besides (`--refetch` for a second run).
pub async fn run_on_site_with(
    cfg: &Path,
    data: &Path,
    base: &str,
    args: &[&str],
) -> std::process::Output {
    let (cfg, data) = (cfg.to_path_buf(), data.to_path_buf());
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.extend(["--seeds".to_string(), format!("{base}/")]);
    tokio::task::spawn_blocking(move || {
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        gleaner_run(&cfg, &data, &all).output().unwrap()
    })
    .await
    .unwrap()
}

/// SIGINT to a running `gleaner run`, and what it printed by the time it
/// exited.
pub async fn interrupt(child: std::process::Child) -> std::process::Output {
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

pub fn unique() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    format!("{}{}", t.as_secs(), t.subsec_nanos())
}

pub fn gleaner(args: &[&str], cfg: &Path, brokers: &str) -> Command {
    let mut c = Command::new(GLEANER);
    c.args(args)
        .arg("--config")
        .arg(cfg)
        .args(["--brokers", brokers]);
    c
}

/// A loopback address with a port free a moment ago (for --metrics).
pub fn free_addr() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// `gleaner serve` on `data`, once it answers /health: the process and
/// the address it listens on.
pub async fn serve_data(cfg: &Path, data: &Path) -> (std::process::Child, String) {
    let listen = free_addr();
    let child = gleaner_on(cfg, Some(data), &["serve", "--listen", &listen])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let up = http_until(
        &format!("http://{listen}/health"),
        Duration::from_secs(10),
        |s, _| s == 200,
    )
    .await;
    assert!(up.is_some(), "gleaner serve did not start");
    (child, listen)
}

/// The status and body of GET `url`, or `None` while nothing answers.
pub async fn http_get(url: &str) -> Option<(u16, String)> {
    let resp = reqwest::get(url).await.ok()?;
    let status = resp.status().as_u16();
    Some((status, resp.text().await.ok()?))
}

/// Polls GET `url` until `want` accepts its answer, for at most `limit`;
/// the last answer either way.
pub async fn http_until(
    url: &str,
    limit: Duration,
    want: impl Fn(u16, &str) -> bool,
) -> Option<(u16, String)> {
    let t0 = Instant::now();
    loop {
        let got = http_get(url).await;
        if got.as_ref().is_some_and(|(s, b)| want(*s, b)) || t0.elapsed() > limit {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
