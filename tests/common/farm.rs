//! A flow of services on a dev broker of their own, crawling 600 real
//! pages on six loopback hosts: what the chaos matrix and the scale-out
//! bench share.

use super::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const HOSTS: usize = 6;
pub const PER_HOST: usize = 100;
pub const STAGES: [&str; 7] = [
    "fetch",
    "clean",
    "extract",
    "dedup",
    "stories",
    "summarize",
    "index",
];

/// The first 600 pages of wcxb-dev, decompressed.
pub fn dataset_pages() -> Vec<Vec<u8>> {
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

/// Requests for pages: (host number, path and query, when).
pub type Requests = std::sync::Arc<std::sync::Mutex<Vec<(usize, String, Instant)>>>;

/// Six hosts of 100 pages each, an index page linking them all; logs
/// requests for pages.
pub async fn start_hosts(pages: Vec<Vec<u8>>) -> (Vec<String>, Requests) {
    use axum::http::Uri;
    use axum::response::IntoResponse;
    let log: Requests = Default::default();
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
                        // The whole URL: a page's own links with a query
                        // (`?page=9`) are other URLs served the same page.
                        let url = uri.path_and_query().map_or(path.clone(), |p| p.to_string());
                        l.lock().unwrap().push((h, url, Instant::now()));
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
pub struct Broker {
    dir: tempfile::TempDir,
    port: u16,
    child: Child,
}

impl Broker {
    pub fn start() -> Broker {
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
            .args([
                "broker",
                "--listener-url",
                &url,
                "--advertised-listener-url",
                &url,
            ])
            .args(["--storage-engine", "sqlite://tansu.db"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("tansu (scripts/broker-start.sh installs it)");
        let t0 = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "broker did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        child
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn restart(&mut self) {
        self.child = Self::spawn(self.dir.path(), self.port);
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// CPU seconds (user and system) a live process has used so far, from
/// /proc (ticks of 1/100 s, Linux's USER_HZ everywhere it runs).
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: fields are counted after its ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    // utime and stime are fields 14 and 15 of stat(5), 11 and 12 here.
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// A broker outlives its test otherwise (a `Child` is not killed when
/// dropped): runs of chaos.sh and bench-scale.sh left brokers behind.
impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}

struct Proc {
    child: Child,
    log: PathBuf,
    runs: usize,
}

/// One flow of six services on its own topics.
pub struct Farm {
    pub tmp: tempfile::TempDir,
    pub cfg: PathBuf,
    pub prefix: String,
    pub brokers: String,
    procs: BTreeMap<String, Proc>,
}

/// Whatever a test left running (a failed assertion skips `stop`) is
/// killed with the farm.
impl Drop for Farm {
    fn drop(&mut self) {
        for p in self.procs.values_mut() {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }
}

impl Farm {
    /// A flow on topics of its own, hosts asked at most every `delay_ms`.
    pub fn new(brokers: &str, name: &str, delay_ms: u64) -> Farm {
        Self::new_with(brokers, name, delay_ms, |_| {})
    }

    /// [`Farm::new`] with `edit` applied to its configuration before the
    /// topics are made (a bench's settings, the partitions among them).
    pub fn new_with(brokers: &str, name: &str, delay_ms: u64, edit: impl FnOnce(&Path)) -> Farm {
        let tmp = tempfile::tempdir().unwrap();
        let prefix = format!("{name}{}", unique());
        let cfg = test_config(tmp.path(), Some(&prefix));
        edit_config(
            &cfg,
            &[
                (
                    "per_host_delay_ms = 10 ",
                    &format!("per_host_delay_ms = {delay_ms} "),
                ),
                ("max_links_per_page = 500", "max_links_per_page = 2000"),
            ],
        );
        edit(&cfg);
        let ok = gleaner(&["topics"], &cfg, brokers).output().unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
        Farm {
            tmp,
            cfg,
            prefix,
            brokers: brokers.to_string(),
            procs: BTreeMap::new(),
        }
    }

    /// Starts (or starts again) instance `instance` of `stage`; each fetch
    /// instance has its own state directory.
    pub fn spawn(&mut self, stage: &str, instance: &str) {
        self.spawn_as(stage, instance, &format!("{stage}/{instance}"));
    }

    /// [`Farm::spawn`] kept under `key`: a second process under one
    /// instance name (a namesake) is another key.
    pub fn spawn_as(&mut self, stage: &str, instance: &str, key: &str) {
        let dir = self.tmp.path();
        let state = dir
            .join(format!("fetch-state-{instance}"))
            .to_string_lossy()
            .into_owned();
        let data = dir.join("data").to_string_lossy().into_owned();
        // `clean+extract`: stages run as one service (`gleaner stage`).
        let parts: Vec<&str> = stage.split('+').collect();
        let mut args = if parts.len() > 1 {
            vec!["stage", stage]
        } else {
            vec![stage]
        };
        args.extend(["--instance", instance]);
        if parts.contains(&"fetch") {
            args.extend(["--allow-private", "--state", &state]);
        }
        if parts.contains(&"index") {
            args.extend(["--data", &data]);
        }
        let runs = self.procs.get(key).map_or(0, |p| p.runs) + 1;
        let log = dir.join(format!("{}-{runs}.log", key.replace('/', "-")));
        let child = gleaner(&args, &self.cfg, &self.brokers)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        self.procs
            .insert(key.to_string(), Proc { child, log, runs });
    }

    /// Every process's log, kept in target/KIND/CASE/ (the farm's own
    /// directory goes with it).
    pub fn keep_logs(&self, kind: &str, case: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target")
            .join(kind)
            .join(case.replace([' ', '+'], ""));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        for entry in std::fs::read_dir(self.tmp.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "log") {
                let _ = std::fs::copy(&path, dir.join(entry.file_name()));
            }
        }
    }

    /// SIGKILL to instance `key`, which no supervisor starts again.
    pub fn kill_for_good(&mut self, key: &str) {
        self.kill(key);
        self.procs.remove(key);
    }

    /// SIGKILL to instance `key` ("stage/instance").
    pub fn kill(&mut self, key: &str) {
        let p = self.procs.get_mut(key).unwrap();
        p.child.kill().unwrap();
        p.child.wait().unwrap();
    }

    pub fn docs(&self) -> u64 {
        gleaner_index::SearchIndex::open(&self.tmp.path().join("data/index"), 200)
            .map(|s| s.num_docs())
            .unwrap_or(0)
    }

    /// What a supervisor (systemd's Restart=on-failure) does: starts again
    /// every instance that exited; the instances restarted.
    pub fn supervise(&mut self) -> Vec<String> {
        let gone: Vec<String> = self
            .procs
            .iter_mut()
            .filter_map(|(k, p)| p.child.try_wait().unwrap().map(|_| k.clone()))
            .collect();
        for key in &gone {
            let (stage, instance) = key.split_once('/').unwrap();
            self.spawn(stage, instance);
        }
        gone
    }

    pub fn exited(&mut self) -> Vec<String> {
        self.procs
            .iter_mut()
            .filter_map(|(n, p)| p.child.try_wait().unwrap().map(|s| format!("{n} ({s})")))
            .collect()
    }

    /// Every live instance's process id, by key ("stage/instance").
    pub fn pids(&self) -> Vec<(String, u32)> {
        self.procs
            .iter()
            .map(|(k, p)| (k.clone(), p.child.id()))
            .collect()
    }

    /// The log of instance `key` ("stage/instance"), its latest run.
    pub fn log_of(&self, key: &str) -> String {
        std::fs::read_to_string(&self.procs[key].log).unwrap_or_default()
    }

    /// The time of the last "partitions assigned" line in the latest logs
    /// of `keys` ("stage/instance"), if any.
    pub fn last_assigned(&self, keys: &[String]) -> Option<jiff::Timestamp> {
        keys.iter()
            .flat_map(|k| {
                self.log_of(k)
                    .lines()
                    .filter(|l| l.contains("partitions assigned"))
                    .filter_map(|l| l.split_whitespace().next()?.parse().ok())
                    .collect::<Vec<jiff::Timestamp>>()
            })
            .max()
    }

    /// Stops every process gracefully (SIGTERM, then SIGKILL after 30 s).
    pub fn stop(&mut self) {
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
    pub fn ids(&self, topic: &str) -> (usize, BTreeSet<String>) {
        let records = read_topic(&self.brokers, &format!("{}.{topic}", self.prefix));
        let ids = records
            .iter()
            .filter_map(|r| serde_json::from_slice::<serde_json::Value>(r).ok())
            .filter_map(|v| v["id"].as_str().map(str::to_string))
            .collect();
        (records.len(), ids)
    }
}
