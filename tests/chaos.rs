//! The chaos matrix (scripts/chaos.sh; by hand, not in the suite, which
//! runs the short subset in e2e_faults.rs): every stage on its own process
//! on a dev broker of its own, crawling 600 real pages (wcxb-dev) on six
//! loopback hosts; in each case one process is killed with SIGKILL mid-crawl
//! and started again after 0, 6 or 15 s (the broker: after 5 s). Per case:
//! articles expected (a run without faults), indexed, lost, indexed twice,
//! duplicate records on unique / summarized / duplicates, the processes
//! that exited stuck and were started again (the harness supervises, with
//! `kafka.unassigned_exit_ms` at 20 s), and the seconds from the restart to
//! the index moving again (after the last supervised restart, if any) or,
//! if later, to the last "partitions assigned" line after the restart (of
//! the restarted stage; for the broker, of any stage), and pages asked of
//! their host more than once. The namesake case starts a second fetch
//! under the first one's name mid-crawl and leaves it running: it must
//! wait without consuming (nothing fetched twice). The standby case runs
//! a second dedup beside the first, kills the active one for good and
//! checks the standby took over. The last host serves copies of the first
//! host's first pages, so that every case also checks that reposts across
//! sites are still recognised (one of each pair kept, the other on
//! `duplicates`).
//! `CHAOS_CASES="extract:6 broker:5"` runs some cases only;
//! `CHAOS_SERVICES="fetch+clean+extract,dedup,stories,summarize+index"`
//! runs the matrix on chained services (`gleaner stage a+b`), whose cases
//! are then those services (the index's input, `grouped`, stands for the
//! `summarized` topic a chain does not write).

mod common;

use common::farm::*;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

struct Row {
    case: String,
    expected: usize,
    indexed: u64,
    lost: usize,
    twice: u64,
    doubled: [usize; 3],
    stuck: String,
    recovery: Option<f64>,
    /// Pages asked of their host more than once.
    refetched: usize,
    /// For a namesake case: whether the namesake waited and never consumed.
    namesake_waited: Option<bool>,
    /// Reposts across sites kept as articles of their own (both copies kept).
    missed: usize,
    /// For a standby case: whether the standby took over.
    took_over: Option<bool>,
}

/// Whether an instance of `stage` that stood by was given partitions.
fn took_over(farm: &Farm, stage: &str) -> bool {
    farm.pids()
        .into_iter()
        .filter(|(k, _)| k.starts_with(&format!("{stage}/")))
        .any(|(k, _)| {
            let log = farm.log_of(&k);
            log.contains("standby:") && log.contains("partitions assigned")
        })
}

/// The services of the farm: one per stage, or `CHAOS_SERVICES`.
fn services() -> Vec<String> {
    match std::env::var("CHAOS_SERVICES") {
        Ok(s) => s.split(',').map(str::to_string).collect(),
        Err(_) => STAGES.iter().map(|s| s.to_string()).collect(),
    }
}

/// The topic whose records reach the index: `summarized`, or `grouped`
/// when summarize and index run as one.
fn index_input(services: &[String]) -> &'static str {
    if services.iter().any(|s| s.contains("summarize+index")) {
        "grouped"
    } else {
        "summarized"
    }
}

/// Pages of the first host that the last one serves again (reposts).
const REPOSTS: usize = 50;

/// A kept article's page, the same for both copies of a repost:
/// "host/path", the first host's for a copy.
fn story_of(url: &str, bases: &[String]) -> Option<String> {
    let (h, path) = bases
        .iter()
        .enumerate()
        .find_map(|(h, b)| Some((h, url.strip_prefix(b.as_str())?)))?;
    let page: Option<usize> = path
        .strip_prefix("/p/")
        .and_then(|p| p.strip_suffix(".html"))
        .and_then(|n| n.parse().ok());
    let h = match page {
        Some(i) if h == HOSTS - 1 && i < REPOSTS => 0,
        _ => h,
    };
    Some(format!("{h}{path}"))
}

/// The pages whose articles were kept (see [`story_of`]) and how many were
/// kept twice, under both copies' URLs.
fn kept(farm: &Farm, bases: &[String], topic: &str) -> (BTreeSet<String>, usize) {
    let mut urls: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in read_topic(&farm.brokers, &format!("{}.{topic}", farm.prefix)) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&r) else {
            continue;
        };
        let url = v["url"].as_str().unwrap_or_default().to_string();
        if let Some(story) = story_of(&url, bases) {
            urls.entry(story).or_default().insert(url);
        }
    }
    let twice = urls.values().filter(|u| u.len() > 1).count();
    (urls.into_keys().collect(), twice)
}

/// Runs one case (`None`: no fault) and says what came of it.
async fn run_case(
    broker: &mut Broker,
    bases: &[String],
    log: &Requests,
    fault: Option<(&str, u64)>,
    expected: &BTreeSet<String>,
) -> (Row, BTreeSet<String>) {
    log.lock().unwrap().clear();
    let mut farm = Farm::new(&broker.addr(), "chaos", 100);
    // A stage left without partitions exits after 20 s, and this harness
    // starts it again as a supervisor would.
    edit_config(
        &farm.cfg,
        &[("unassigned_exit_ms = 60000", "unassigned_exit_ms = 20000")],
    );
    let services = services();
    for s in &services {
        farm.spawn(s, "1");
    }
    let standby = fault.and_then(|(target, _)| target.strip_prefix("standby-"));
    if let Some(stage) = standby {
        farm.spawn(stage, "2");
    }
    let seeds: Vec<String> = bases.iter().map(|b| format!("{b}/")).collect();
    let mut args = vec!["seed"];
    args.extend(seeds.iter().map(String::as_str));
    assert!(gleaner(&args, &farm.cfg, &farm.brokers)
        .status()
        .unwrap()
        .success());
    let mut recovery = None;
    let mut restarted_at = None;
    let mut restarted_wall = None;
    if let Some((target, delay)) = fault {
        let t0 = Instant::now();
        while log.lock().unwrap().len() < 200 && t0.elapsed() < Duration::from_secs(120) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if let Some(stage) = standby {
            // The active one (the one given partitions) dies for good.
            let active = ["1", "2"]
                .map(|i| format!("{stage}/{i}"))
                .into_iter()
                .find(|k| farm.log_of(k).contains("partitions assigned"))
                .unwrap_or_else(|| format!("{stage}/1"));
            farm.kill_for_good(&active);
            restarted_at = Some(Instant::now());
            restarted_wall = Some(jiff::Timestamp::now());
        } else if let Some(stage) = target.strip_prefix("namesake-") {
            // A second instance under the same name, left running: it must
            // wait, not consume (no kill, so nothing to recover from).
            tokio::time::sleep(Duration::from_secs(delay)).await;
            farm.spawn_as(stage, "1", &format!("{stage}/1-namesake"));
        } else {
            if target == "broker" {
                broker.kill();
            } else {
                farm.kill(&format!("{target}/1"));
            }
            tokio::time::sleep(Duration::from_secs(delay)).await;
            if target == "broker" {
                broker.restart();
            } else {
                farm.spawn(target, "1");
            }
            restarted_at = Some(Instant::now());
            restarted_wall = Some(jiff::Timestamp::now());
        }
    }
    // Until everything expected is indexed and nothing moves for 10 s, or
    // three minutes.
    let start = Instant::now();
    let (mut last, mut still) = (u64::MAX, Instant::now());
    let mut docs_at_restart = farm.docs();
    let mut supervised = Vec::new();
    loop {
        let restarted = farm.supervise();
        if !restarted.is_empty() {
            // Recovered only once the index moves after this restart.
            docs_at_restart = farm.docs();
            recovery = None;
            supervised.extend(restarted);
        }
        let docs = farm.docs();
        if let (Some(t), None) = (restarted_at, recovery) {
            // Back when the index moves again (or has everything); in the
            // standby case, once the standby took over (before, the index
            // moves with what the dead one had sent).
            let back = (docs > docs_at_restart || docs as usize >= expected.len().max(1))
                && standby.is_none_or(|stage| took_over(&farm, stage));
            if back {
                recovery = Some(t.elapsed().as_secs_f64());
                still = Instant::now();
            }
        }
        if docs != last {
            (last, still) = (docs, Instant::now());
        }
        let done = !expected.is_empty() && docs as usize >= expected.len();
        // Stillness counts only once the restarted process is back: a
        // stage away for 15 s holds the index still for longer than that.
        let back = restarted_at.is_none() || recovery.is_some();
        if (done && still.elapsed() > Duration::from_secs(5))
            || (back && still.elapsed() > Duration::from_secs(45))
            || start.elapsed() > Duration::from_secs(240)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // The index can move while the restarted stage is not yet back for
    // good (assigned, then revoked): recovered is also the last assignment
    // after the restart, of the restarted stage or, for the broker, of any.
    if let (Some((target, _)), Some(at), Some(r)) = (fault, restarted_wall, recovery) {
        let keys: Vec<String> = if target == "broker" {
            services.iter().map(|s| format!("{s}/1")).collect()
        } else if let Some(stage) = standby {
            farm.pids()
                .into_iter()
                .map(|(k, _)| k)
                .filter(|k| k.starts_with(&format!("{stage}/")))
                .collect()
        } else {
            vec![format!("{target}/1")]
        };
        if let Some(last) = farm.last_assigned(&keys).filter(|t| *t > at) {
            let secs = last.duration_since(at).as_secs_f64();
            recovery = Some(r.max(secs));
        }
    }
    let refetched = {
        let mut seen = BTreeSet::new();
        log.lock()
            .unwrap()
            .iter()
            .filter(|(_, path, _)| !path.ends_with("robots.txt"))
            .filter(|(host, path, _)| !seen.insert((*host, path.clone())))
            .count()
    };
    let namesake_waited = fault
        .and_then(|(target, _)| target.strip_prefix("namesake-"))
        .map(|stage| {
            let log = farm.log_of(&format!("{stage}/1-namesake"));
            log.contains("another instance named") && !log.contains("partitions assigned")
        });
    let took_over = standby.map(|stage| took_over(&farm, stage));
    let mut stuck = farm.exited();
    stuck.extend(supervised.iter().map(|k| format!("{k} restarted")));
    let stuck = stuck.join(", ");
    farm.stop();
    let case = fault.map_or("no fault".to_string(), |(s, d)| format!("{s} +{d}s"));
    farm.keep_logs("chaos-logs", &case);
    let (uniq_records, unique) = farm.ids("unique");
    let (sum_records, summarized) = farm.ids(index_input(&services));
    let (dup_records, dups) = farm.ids("duplicates");
    let (stories, missed) = kept(&farm, bases, index_input(&services));
    let indexed = farm.docs();
    let row = Row {
        case,
        expected: expected.len(),
        indexed,
        lost: expected.difference(&stories).count(),
        twice: indexed.saturating_sub(summarized.len() as u64),
        doubled: [
            uniq_records - unique.len(),
            sum_records - summarized.len(),
            dup_records - dups.len(),
        ],
        stuck: if stuck.is_empty() { "-".into() } else { stuck },
        recovery,
        refetched,
        namesake_waited,
        missed,
        took_over,
    };
    (row, stories)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the whole chaos matrix takes about 20 minutes: scripts/chaos.sh"]
async fn chaos_matrix() {
    let mut broker = Broker::start();
    let mut pages = dataset_pages();
    for i in 0..REPOSTS {
        pages[(HOSTS - 1) * PER_HOST + i] = pages[i].clone();
    }
    let (bases, log) = start_hosts(pages).await;
    let cases: Vec<(String, u64)> = match std::env::var("CHAOS_CASES") {
        Ok(c) => c
            .split_whitespace()
            .filter_map(|c| c.split_once(':'))
            .map(|(s, d)| (s.to_string(), d.parse().unwrap()))
            .collect(),
        Err(_) => services()
            .iter()
            .flat_map(|s| [0, 6, 15].map(|d| (s.to_string(), d)))
            .chain([
                ("broker".to_string(), 5),
                ("namesake-fetch".to_string(), 0),
                ("standby-dedup".to_string(), 0),
            ])
            .collect(),
    };
    let (base, expected) = run_case(&mut broker, &bases, &log, None, &BTreeSet::new()).await;
    let header = format!(
        "{:<16} {:>8} {:>8} {:>5} {:>6} {:>18} {:>9} {:>7}  {:<8} {:>9}",
        "case",
        "expected",
        "indexed",
        "lost",
        "twice",
        "dup unique/sum/dup",
        "refetched",
        "missed",
        "stuck",
        "recovery"
    );
    let line = |r: &Row| {
        format!(
            "{:<16} {:>8} {:>8} {:>5} {:>6} {:>18} {:>9} {:>7}  {:<8} {:>9}",
            r.case,
            r.expected,
            r.indexed,
            r.lost,
            r.twice,
            format!("{}/{}/{}", r.doubled[0], r.doubled[1], r.doubled[2]),
            r.refetched,
            r.missed,
            r.stuck,
            r.recovery.map_or("-".into(), |s| format!("{s:.1} s"))
        )
    };
    println!(
        "{header}\n{}",
        line(&Row {
            expected: expected.len(),
            ..base
        })
    );
    let mut failed = Vec::new();
    for (stage, delay) in &cases {
        let (row, _) = run_case(&mut broker, &bases, &log, Some((stage, *delay)), &expected).await;
        println!("{}", line(&row));
        // A stage that exited and was restarted by the supervisor is how
        // a stuck stage should behave; losing or doubling is not.
        // A namesake must wait: nothing fetched twice, it never consumed.
        let namesake_failed = row
            .namesake_waited
            .is_some_and(|waited| !waited || row.refetched > 0);
        let standby_failed = row.took_over == Some(false);
        if row.lost > 0
            || row.twice > 0
            || row.missed > 0
            || row.doubled.iter().any(|d| *d > 0)
            || namesake_failed
            || standby_failed
        {
            failed.push(row.case.clone());
        }
    }
    assert!(
        failed.is_empty(),
        "cases with losses or doubles: {failed:?}"
    );
}
