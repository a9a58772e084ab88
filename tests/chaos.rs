//! The chaos matrix (scripts/chaos.sh; by hand, not in the suite, which
//! runs the short subset in e2e_faults.rs): every stage on its own process
//! on a dev broker of its own, crawling 600 real pages (wcxb-dev) on six
//! loopback hosts; in each case one process is killed with SIGKILL mid-crawl
//! and started again after 0, 6 or 15 s (the broker: after 5 s). Per case:
//! articles expected (a run without faults), indexed, lost, indexed twice,
//! duplicate records on unique / summarized / duplicates, stuck processes,
//! and the seconds from the restart to the restarted process owning its
//! partitions again (for the broker: to the index moving again).
//! `CHAOS_CASES="extract:6 broker:5"` runs some cases only.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const HOSTS: usize = 6;
const PER_HOST: usize = 100;
const STAGES: [&str; 6] = ["fetch", "clean", "extract", "dedup", "summarize", "index"];

/// The first 600 pages of wcxb-dev, decompressed.
fn dataset_pages() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/wcxb-dev/html");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".html.gz"))
        .collect();
    files.sort();
    files
        .iter()
        .take(HOSTS * PER_HOST)
        .map(|p| {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
                .read_to_end(&mut out)
                .unwrap();
            out
        })
        .collect()
}

/// Six hosts of 100 pages each, an index page linking them all; counts
/// requests for pages.
async fn start_hosts(pages: Vec<Vec<u8>>) -> (Vec<String>, Log) {
    use axum::http::Uri;
    use axum::response::IntoResponse;
    let log: Log = Default::default();
    let pages = std::sync::Arc::new(pages);
    let mut bases = Vec::new();
    for h in 0..HOSTS {
        let (pages, l) = (pages.clone(), log.clone());
        let app = axum::Router::new().fallback(move |uri: Uri| {
            let (pages, l) = (pages.clone(), l.clone());
            async move {
                let path = uri.path().to_string();
                if path == "/" {
                    let links: String = (0..PER_HOST)
                        .map(|i| format!("<a href='/p/{i}.html'>{i}</a><br>"))
                        .collect();
                    return axum::response::Html(format!("<html><body>{links}</body></html>"))
                        .into_response();
                }
                let i: Option<usize> = path
                    .strip_prefix("/p/")
                    .and_then(|p| p.strip_suffix(".html"))
                    .and_then(|n| n.parse().ok());
                match i.filter(|i| *i < PER_HOST) {
                    Some(i) => {
                        l.lock().unwrap().push(format!("{h}{path}"));
                        (
                            [("content-type", "text/html; charset=utf-8")],
                            pages[h * PER_HOST + i].clone(),
                        )
                            .into_response()
                    }
                    None => axum::http::StatusCode::NOT_FOUND.into_response(),
                }
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        bases.push(format!("http://{}", listener.local_addr().unwrap()));
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    }
    (bases, log)
}

/// A dev broker this run can kill and start again on the same port and data.
struct Broker {
    dir: tempfile::TempDir,
    port: u16,
    child: Child,
}

impl Broker {
    fn start() -> Broker {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().unwrap();
        let child = Self::spawn(dir.path(), port);
        Broker { dir, port, child }
    }

    fn spawn(dir: &Path, port: u16) -> Child {
        let url = format!("tcp://127.0.0.1:{port}");
        let child = Command::new("tansu")
            .args(["broker", "--listener-url", &url, "--advertised-listener-url", &url])
            .args(["--storage-engine", "sqlite://tansu.db"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("tansu (scripts/broker-start.sh installs it)");
        let t0 = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(t0.elapsed() < Duration::from_secs(20), "broker did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        child
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn restart(&mut self) {
        self.child = Self::spawn(self.dir.path(), self.port);
    }
}

struct Proc {
    child: Child,
    log: PathBuf,
    runs: usize,
}

/// One flow of six services on its own topics.
struct Farm {
    tmp: tempfile::TempDir,
    cfg: PathBuf,
    prefix: String,
    brokers: String,
    procs: BTreeMap<String, Proc>,
}

impl Farm {
    fn new(brokers: &str, name: &str) -> Farm {
        let tmp = tempfile::tempdir().unwrap();
        let prefix = format!("{name}{}", unique());
        let cfg = test_config(tmp.path(), Some(&prefix));
        let text = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("per_host_delay_ms = 10", "per_host_delay_ms = 100")
            .replace("max_links_per_page = 500", "max_links_per_page = 2000");
        std::fs::write(&cfg, text).unwrap();
        let ok = gleaner(&["topics"], &cfg, brokers).output().unwrap();
        assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
        Farm {
            tmp,
            cfg,
            prefix,
            brokers: brokers.to_string(),
            procs: BTreeMap::new(),
        }
    }

    fn spawn(&mut self, stage: &str) {
        let dir = self.tmp.path();
        let state = dir.join("fetch-state").to_string_lossy().into_owned();
        let data = dir.join("data").to_string_lossy().into_owned();
        let mut args = vec![stage];
        match stage {
            "fetch" => args.extend(["--allow-private", "--state", &state]),
            "index" => args.extend(["--data", &data]),
            _ => {}
        }
        let runs = self.procs.get(stage).map_or(0, |p| p.runs) + 1;
        let log = dir.join(format!("{stage}-{runs}.log"));
        let child = gleaner(&args, &self.cfg, &self.brokers)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        self.procs
            .insert(stage.to_string(), Proc { child, log, runs });
    }

    fn kill(&mut self, stage: &str) {
        let p = self.procs.get_mut(stage).unwrap();
        p.child.kill().unwrap();
        p.child.wait().unwrap();
    }

    fn docs(&self) -> u64 {
        gleaner_index::SearchIndex::open(&self.tmp.path().join("data/index"), 200)
            .map(|s| s.num_docs())
            .unwrap_or(0)
    }

    fn exited(&mut self) -> Vec<String> {
        self.procs
            .iter_mut()
            .filter_map(|(n, p)| p.child.try_wait().unwrap().map(|s| format!("{n} ({s})")))
            .collect()
    }

    fn log_of(&self, stage: &str) -> String {
        std::fs::read_to_string(&self.procs[stage].log).unwrap_or_default()
    }

    fn stop(&mut self) {
        for p in self.procs.values_mut() {
            let _ = Command::new("kill")
                .args(["-TERM", &p.child.id().to_string()])
                .status();
        }
        for p in self.procs.values_mut() {
            let t0 = Instant::now();
            while p.child.try_wait().unwrap().is_none() && t0.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = p.child.kill();
        }
    }

    /// (records, distinct ids) on a topic.
    fn ids(&self, topic: &str) -> (usize, BTreeSet<String>) {
        let records = read_topic(&self.brokers, &format!("{}.{topic}", self.prefix));
        let ids = records
            .iter()
            .filter_map(|r| serde_json::from_slice::<serde_json::Value>(r).ok())
            .filter_map(|v| v["id"].as_str().map(str::to_string))
            .collect();
        (records.len(), ids)
    }
}

struct Row {
    case: String,
    expected: usize,
    indexed: u64,
    lost: usize,
    twice: u64,
    doubled: [usize; 3],
    stuck: String,
    recovery: Option<f64>,
}

/// Runs one case (`None`: no fault) and says what came of it.
async fn run_case(
    broker: &mut Broker,
    bases: &[String],
    log: &Log,
    fault: Option<(&str, u64)>,
    expected: &BTreeSet<String>,
) -> (Row, BTreeSet<String>) {
    log.lock().unwrap().clear();
    let mut farm = Farm::new(&broker.addr(), "chaos");
    for s in STAGES {
        farm.spawn(s);
    }
    let seeds: Vec<String> = bases.iter().map(|b| format!("{b}/")).collect();
    let mut args = vec!["seed"];
    args.extend(seeds.iter().map(String::as_str));
    assert!(gleaner(&args, &farm.cfg, &farm.brokers).status().unwrap().success());
    let mut recovery = None;
    let mut restarted_at = None;
    if let Some((target, delay)) = fault {
        let t0 = Instant::now();
        while log.lock().unwrap().len() < 200 && t0.elapsed() < Duration::from_secs(120) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if target == "broker" {
            broker.kill();
        } else {
            farm.kill(target);
        }
        tokio::time::sleep(Duration::from_secs(delay)).await;
        if target == "broker" {
            broker.restart();
        } else {
            farm.spawn(target);
        }
        restarted_at = Some(Instant::now());
    }
    // Until everything expected is indexed and nothing moves for 10 s, or
    // three minutes.
    let start = Instant::now();
    let (mut last, mut still) = (u64::MAX, Instant::now());
    let docs_at_restart = farm.docs();
    loop {
        let docs = farm.docs();
        if let (Some(t), None) = (restarted_at, recovery) {
            let back = match fault {
                Some(("broker", _)) => docs > docs_at_restart || docs as usize >= expected.len().max(1),
                Some((s, _)) => farm.log_of(s).contains("partitions assigned"),
                None => true,
            };
            if back {
                recovery = Some(t.elapsed().as_secs_f64());
            }
        }
        if docs != last {
            (last, still) = (docs, Instant::now());
        }
        let done = !expected.is_empty() && docs as usize >= expected.len();
        if (done && still.elapsed() > Duration::from_secs(5))
            || still.elapsed() > Duration::from_secs(20)
            || start.elapsed() > Duration::from_secs(180)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let stuck = farm.exited().join(", ");
    farm.stop();
    let (_, unique) = farm.ids("unique");
    let (sum_records, summarized) = farm.ids("summarized");
    let (uniq_records, _) = farm.ids("unique");
    let (dup_records, dups) = farm.ids("duplicates");
    let indexed = farm.docs();
    let case = fault.map_or("no fault".to_string(), |(s, d)| format!("{s} +{d}s"));
    let row = Row {
        case,
        expected: expected.len(),
        indexed,
        lost: expected.difference(&summarized).count(),
        twice: indexed.saturating_sub(summarized.len() as u64),
        doubled: [
            uniq_records - unique.len(),
            sum_records - summarized.len(),
            dup_records - dups.len(),
        ],
        stuck: if stuck.is_empty() { "-".into() } else { stuck },
        recovery,
    };
    (row, summarized)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the whole chaos matrix takes about 20 minutes: scripts/chaos.sh"]
async fn chaos_matrix() {
    let mut broker = Broker::start();
    let (bases, log) = start_hosts(dataset_pages()).await;
    let cases: Vec<(String, u64)> = match std::env::var("CHAOS_CASES") {
        Ok(c) => c
            .split_whitespace()
            .filter_map(|c| c.split_once(':'))
            .map(|(s, d)| (s.to_string(), d.parse().unwrap()))
            .collect(),
        Err(_) => STAGES
            .iter()
            .flat_map(|s| [0, 6, 15].map(|d| (s.to_string(), d)))
            .chain([("broker".to_string(), 5)])
            .collect(),
    };
    let (base, expected) = run_case(&mut broker, &bases, &log, None, &BTreeSet::new()).await;
    let header = format!(
        "{:<16} {:>8} {:>8} {:>5} {:>6} {:>18}  {:<8} {:>9}",
        "case", "expected", "indexed", "lost", "twice", "dup unique/sum/dup", "stuck", "recovery"
    );
    let line = |r: &Row| {
        format!(
            "{:<16} {:>8} {:>8} {:>5} {:>6} {:>18}  {:<8} {:>9}",
            r.case,
            r.expected,
            r.indexed,
            r.lost,
            r.twice,
            format!("{}/{}/{}", r.doubled[0], r.doubled[1], r.doubled[2]),
            r.stuck,
            r.recovery.map_or("-".into(), |s| format!("{s:.1} s"))
        )
    };
    println!("{header}\n{}", line(&Row { expected: expected.len(), ..base }));
    let mut failed = Vec::new();
    for (stage, delay) in &cases {
        let (row, _) = run_case(&mut broker, &bases, &log, Some((stage, *delay)), &expected).await;
        println!("{}", line(&row));
        if row.lost > 0 || row.twice > 0 || row.doubled.iter().any(|d| *d > 0) || row.stuck != "-" {
            failed.push(row.case.clone());
        }
    }
    assert!(failed.is_empty(), "cases with losses, doubles or stuck processes: {failed:?}");
}
