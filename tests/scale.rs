//! The scale-out bench (scripts/bench-scale.sh; by hand, not in the suite):
//! the same crawl of 600 real pages on six loopback hosts, on a dev broker,
//! with one instance of every stage and then with two of each stage that
//! scales out (fetch, clean, extract, summarize; dedup and index stay one:
//! see the README). Checks, for each layout, that no page is fetched twice,
//! no host is asked sooner than its delay across fetch instances, and every
//! article is indexed once; prints pages/s and articles indexed/s.

mod common;

use common::farm::*;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

const DELAY_MS: u64 = 20;

struct Layout {
    name: &'static str,
    instances: [usize; 7],
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a bench of a few minutes: scripts/bench-scale.sh"]
async fn scale_out() {
    let broker = Broker::start();
    let (bases, requests) = start_hosts(dataset_pages()).await;
    let layouts = [
        Layout {
            name: "one of each",
            instances: [1, 1, 1, 1, 1, 1, 1],
        },
        Layout {
            name: "two of each",
            instances: [2, 2, 2, 1, 1, 2, 1],
        },
    ];
    let mut indexed_by = Vec::new();
    let mut failures = Vec::new();
    for layout in &layouts {
        requests.lock().unwrap().clear();
        let mut farm = start_farm(&broker, "scale", DELAY_MS, layout.instances).await;
        let started = seed(&farm, &bases);
        let pages = HOSTS * PER_HOST;
        let (fetched_in, indexed_in) = wait_until_indexed(&farm, &requests, started).await;
        let exited = farm.exited();
        farm.stop();
        farm.keep_logs("scale-logs", layout.name);
        // Politeness and no double fetch, as the hosts saw it.
        let log = requests.lock().unwrap().clone();
        // Per URL (a query makes another URL of the same page), and the
        // pages that were fetched at all.
        let mut per_path: BTreeMap<(usize, &str), usize> = BTreeMap::new();
        let mut paths: BTreeSet<(usize, &str)> = BTreeSet::new();
        let mut per_host: BTreeMap<usize, Vec<Instant>> = BTreeMap::new();
        for (h, p, t) in &log {
            *per_path.entry((*h, p.as_str())).or_default() += 1;
            paths.insert((*h, p.split('?').next().unwrap_or(p)));
            per_host.entry(*h).or_default().push(*t);
        }
        let twice = per_path.values().filter(|n| **n > 1).count();
        // Which, and how far apart: a retry comes at once, a second plan later.
        let again: Vec<String> = per_path
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|((h, p), _)| {
                let ts: Vec<Instant> = log
                    .iter()
                    .filter(|(lh, lp, _)| lh == h && lp == p)
                    .map(|(_, _, t)| *t)
                    .collect();
                format!(
                    "host {h} {p} {:.0} ms apart",
                    (ts[1] - ts[0]).as_secs_f64() * 1000.0
                )
            })
            .collect();
        let shortest = per_host
            .values_mut()
            .flat_map(|ts| {
                ts.sort();
                ts.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
            })
            .min()
            .unwrap_or_default();
        let (uniq_records, unique) = farm.ids("unique");
        let (sum_records, summarized) = farm.ids("summarized");
        let docs = farm.docs();
        println!(
            "{:<12} {} pages in {:.1} s: {:.1} pages/s; {docs} articles indexed in {:.1} s: {:.1}/s; \
             fetched twice {twice}; shortest gap to one host {} ms (delay {DELAY_MS}); \
             doubled records unique {} summarized {}",
            layout.name,
            paths.len(),
            fetched_in.as_secs_f64(),
            paths.len() as f64 / fetched_in.as_secs_f64(),
            indexed_in.as_secs_f64(),
            docs as f64 / indexed_in.as_secs_f64(),
            shortest.as_millis(),
            uniq_records - unique.len(),
            sum_records - summarized.len(),
        );
        if !again.is_empty() {
            println!("  fetched twice: {again:?}");
        }
        // Every layout runs; what failed is said at the end.
        let checks = [
            (exited.is_empty(), format!("exited: {exited:?}")),
            (
                paths.len() == pages,
                format!("{} of {pages} pages fetched", paths.len()),
            ),
            (twice == 0, format!("{twice} page(s) fetched twice")),
            (
                shortest >= Duration::from_millis(DELAY_MS),
                format!("a host asked after {shortest:?}"),
            ),
            (
                docs == summarized.len() as u64,
                "indexed once each".to_string(),
            ),
            (uniq_records == unique.len(), "unique doubled".to_string()),
            (
                sum_records == summarized.len(),
                "summarized doubled".to_string(),
            ),
        ];
        failures.extend(
            checks
                .into_iter()
                .filter(|(ok, _)| !ok)
                .map(|(_, what)| format!("{}: {what}", layout.name)),
        );
        indexed_by.push(docs);
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(
        indexed_by[0], indexed_by[1],
        "both layouts index the same articles"
    );
}

/// A farm with `instances` of each stage (in [`STAGES`]' order), once every
/// instance has joined its group.
async fn start_farm(broker: &Broker, name: &str, delay_ms: u64, instances: [usize; 7]) -> Farm {
    let services: Vec<(&str, usize)> = STAGES.iter().copied().zip(instances).collect();
    start_services(broker, name, delay_ms, &services).await
}

/// A farm of `services` (a stage, or stages run as one: `clean+extract`),
/// each with its number of instances, once every instance has joined its
/// group.
async fn start_services(
    broker: &Broker,
    name: &str,
    delay_ms: u64,
    services: &[(&str, usize)],
) -> Farm {
    // Before the topics are made: `partitions` is among the settings.
    let mut farm = Farm::new_with(&broker.addr(), name, delay_ms, apply_bench_set);
    for &(service, n) in services {
        for i in 1..=n {
            farm.spawn(service, &i.to_string());
        }
    }
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(60) {
        let joined = services.iter().all(|&(s, n)| {
            (1..=n).all(|i| {
                farm.log_of(&format!("{s}/{i}"))
                    .contains("partitions assigned")
            })
        });
        if joined {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    farm
}

/// `BENCH_SET="key=value ..."` sets pipelines.toml keys (the first line
/// of each name), to compare settings in one build.
fn apply_bench_set(cfg: &std::path::Path) {
    let Ok(set) = std::env::var("BENCH_SET") else {
        return;
    };
    let mut text = std::fs::read_to_string(cfg).unwrap();
    for kv in set.split_whitespace() {
        let (key, value) = kv.split_once('=').expect("BENCH_SET takes key=value");
        let start = format!("{key} = ");
        let line = text
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no key {key} in pipelines.toml"))
            .to_string();
        text = text.replacen(&line, &format!("{start}{value}"), 1);
    }
    std::fs::write(cfg, text).unwrap();
}

/// Depth 1, as bench-e2e: the hosts' index pages and their pages. (At the
/// default depth 2 the pages' own site links, thousands of them, are
/// fetched too and answer 404.) Returns when the seeds were produced.
fn seed(farm: &Farm, bases: &[String]) -> Instant {
    let seeds = seed_urls(bases);
    let mut args = vec!["seed", "--depth", "1"];
    args.extend(seeds.iter().map(String::as_str));
    let started = Instant::now();
    assert!(gleaner(&args, &farm.cfg, &farm.brokers)
        .status()
        .unwrap()
        .success());
    started
}

fn seed_urls(bases: &[String]) -> Vec<String> {
    bases.iter().map(|b| format!("{b}/")).collect()
}

/// Waits until every page was asked for and the index has not grown for
/// 5 s (at most 300 s); returns when the last page was asked for and when
/// the last article became searchable, from `started`.
async fn wait_until_indexed(
    farm: &Farm,
    requests: &Requests,
    started: Instant,
) -> (Duration, Duration) {
    let pages = HOSTS * PER_HOST;
    let (mut fetched_in, mut last, mut still) = (None, u64::MAX, Instant::now());
    loop {
        let n = requests.lock().unwrap().len();
        if n >= pages && fetched_in.is_none() {
            fetched_in = Some(started.elapsed());
        }
        let docs = farm.docs();
        if docs != last {
            (last, still) = (docs, Instant::now());
        }
        if (fetched_in.is_some() && still.elapsed() > Duration::from_secs(5))
            || started.elapsed() > Duration::from_secs(300)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (
        fetched_in.unwrap_or(started.elapsed()),
        still.duration_since(started),
    )
}

/// CPU seconds of every process now, by name.
fn cpu_now(farm: &Farm, broker: &Broker) -> BTreeMap<String, f64> {
    let mut cpu: BTreeMap<String, f64> = farm
        .pids()
        .into_iter()
        .filter_map(|(k, pid)| Some((k, cpu_seconds(pid)?)))
        .collect();
    cpu.insert("broker".into(), cpu_seconds(broker.pid()).unwrap_or(0.0));
    cpu
}

/// Issue 31's measure: the same crawl (600 real pages on six loopback
/// hosts, no politeness delay) as one process per stage on the dev broker,
/// as services that chain stages (`BENCH_CHAINS`, default
/// `fetch+clean+extract,dedup,stories,summarize+index`: the topics between
/// chained stages are not written), and then as `gleaner run`, in one
/// invocation. Prints pages/s of each, the CPU seconds per page of every
/// process (from /proc, counted from the seeds on: what each spent on
/// these pages, not on starting), the broker's among them, and the ratios
/// the issue sets targets for. `BENCH_RUNS=N` repeats the three N times (a
/// fresh broker for each Kafka form) and prints the medians: one run's
/// ratio varies by a fifth on this machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a bench of a minute or two a run: scripts/bench-scale.sh"]
async fn kafka_against_in_process() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let chains = std::env::var("BENCH_CHAINS")
        .unwrap_or_else(|_| "fetch+clean+extract,dedup,stories,summarize+index".into());
    let chained: Vec<(&str, usize)> = chains.split(',').map(|s| (s, 1)).collect();
    let separate: Vec<(&str, usize)> = STAGES.iter().map(|&s| (s, 1)).collect();
    let forms = [("one per stage", separate), ("chained", chained)];
    let (bases, requests) = start_hosts(dataset_pages()).await;
    let mut rounds: Vec<Vec<Ratios>> = vec![Vec::new(); forms.len()];
    for run in 1..=runs {
        println!("run {run} of {runs}");
        let on_kafka: Vec<KafkaRun> = {
            let mut v = Vec::new();
            for (name, services) in &forms {
                v.push(kafka_form(&bases, &requests, name, services).await);
            }
            v
        };
        let alone = in_process(&bases, &requests, &on_kafka[0].cfg).await;
        for ((name, _), (k, ratios)) in forms.iter().zip(on_kafka.iter().zip(&mut rounds)) {
            ratios.push(k.against(name, &alone));
        }
    }
    if runs > 1 {
        for ((name, _), round) in forms.iter().zip(&rounds) {
            let median = |f: fn(&Ratios) -> f64| {
                let mut v: Vec<f64> = round.iter().map(f).collect();
                v.sort_by(f64::total_cmp);
                let (lo, hi) = (v[0], v[v.len() - 1]);
                (v[v.len() / 2], lo, hi)
            };
            let (r, r_lo, r_hi) = median(|r| r.pages_per_s);
            let (c, c_lo, c_hi) = median(|r| r.cpu);
            let (b, b_lo, b_hi) = median(|r| r.broker_ms);
            println!(
                "{name}, medians of {runs} runs: pages/s kafka / in-process {r:.3} ({r_lo:.3}-{r_hi:.3}; target >= 0.5); \
                 gleaner CPU per page kafka / in-process {c:.2} ({c_lo:.2}-{c_hi:.2}; target <= 1.5); \
                 broker {b:.2} ms CPU per page ({b_lo:.2}-{b_hi:.2})"
            );
        }
    }
}

/// What one run measured, as the ratios.
#[derive(Clone)]
struct Ratios {
    pages_per_s: f64,
    cpu: f64,
    broker_ms: f64,
}

/// The crawl on Kafka: what it cost each process and how long it took.
struct KafkaRun {
    cfg: std::path::PathBuf,
    _farm: Farm,
    pages: f64,
    docs: u64,
    fetched_in: Duration,
    indexed_in: Duration,
    /// CPU seconds of each process from the seeds on, the broker's apart.
    used: BTreeMap<String, f64>,
    broker: f64,
}

/// The crawl in one process.
struct Alone {
    pages: f64,
    docs: u64,
    took: Duration,
    cpu: f64,
}

/// The crawl on a broker of its own, with `services` as processes.
async fn kafka_form(
    bases: &[String],
    requests: &Requests,
    name: &str,
    services: &[(&str, usize)],
) -> KafkaRun {
    let broker = Broker::start();
    requests.lock().unwrap().clear();
    let mut farm = start_services(&broker, "efficiency", 0, services).await;
    // What the processes spend waiting, with nothing to do.
    let idle_from = cpu_now(&farm, &broker);
    tokio::time::sleep(Duration::from_secs(5)).await;
    let before = cpu_now(&farm, &broker);
    let started = seed(&farm, bases);
    let (fetched_in, indexed_in) = wait_until_indexed(&farm, requests, started).await;
    let after = cpu_now(&farm, &broker);
    let docs = farm.docs();
    farm.stop();
    // Records each page cost the broker, by topic.
    let mut records = Vec::new();
    for topic in [
        "seeds",
        "frontier",
        "pages",
        "cleaned",
        "articles",
        "unique",
        "duplicates",
        "grouped",
        "story-log",
        "summarized",
        "dead-letter",
        "skipped",
        "status",
    ] {
        let on = read_topic(&farm.brokers, &format!("{}.{topic}", farm.prefix));
        let bytes: usize = on.iter().map(Vec::len).sum();
        records.push(format!("{topic} {} ({} kB)", on.len(), bytes / 1000));
    }
    println!("{name}: records: {}", records.join(", "));
    farm.keep_logs("scale-logs", &format!("efficiency-{name}"));
    let pages = requests.lock().unwrap().len() as f64;
    println!("{name}: process       CPU s   ms/page   idle CPU s/s");
    let mut used = BTreeMap::new();
    for (process, end) in &after {
        let spent = end - before.get(process).copied().unwrap_or(0.0);
        let idle = (before[process] - idle_from.get(process).copied().unwrap_or(0.0)) / 5.0;
        println!(
            "{:<24} {spent:>7.2} {:>9.2} {idle:>14.3}",
            process,
            1000.0 * spent / pages
        );
        used.insert(process.clone(), spent);
    }
    let broker_cpu = used.remove("broker").unwrap_or(0.0);
    KafkaRun {
        cfg: farm.cfg.clone(),
        _farm: farm,
        pages,
        docs,
        fetched_in,
        indexed_in,
        used,
        broker: broker_cpu,
    }
}

/// The same crawl in one process, on the same configuration; its CPU from
/// bash's `times` (the children's user and system seconds).
async fn in_process(bases: &[String], requests: &Requests, cfg: &std::path::Path) -> Alone {
    requests.lock().unwrap().clear();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("in-process");
    let mut script = format!(
        "'{GLEANER}' run --allow-private --config '{}' --data '{}' --depth 1 --seeds",
        cfg.display(),
        data.display()
    );
    for s in seed_urls(bases) {
        script.push_str(&format!(" '{s}'"));
    }
    script.push_str(" >/dev/null 2>&1; times");
    let t0 = Instant::now();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("bash")
            .args(["-c", &script])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let took = t0.elapsed();
    let times = String::from_utf8_lossy(&out.stdout).into_owned();
    let cpu = children_cpu(&times).unwrap_or_else(|| panic!("bash's times said {times:?}"));
    let pages = requests.lock().unwrap().len() as f64;
    let docs = gleaner_index::SearchIndex::open(&data.join("index"), 200)
        .map(|s| s.num_docs())
        .unwrap_or(0);
    println!(
        "in-process: {pages} pages, {docs} indexed in {:.1} s, {cpu:.2} CPU s ({:.2} ms/page)",
        took.as_secs_f64(),
        1000.0 * cpu / pages
    );
    Alone {
        pages,
        docs,
        took,
        cpu,
    }
}

impl KafkaRun {
    /// Its ratios against the in-process run, printed.
    fn against(&self, name: &str, alone: &Alone) -> Ratios {
        let stages: f64 = self.used.values().sum();
        let kafka_rate = self.pages / self.indexed_in.as_secs_f64();
        let run_rate = alone.pages / alone.took.as_secs_f64();
        // The broker's CPU follows the partitions its consumers read: said
        // beside every figure.
        let partitions = std::fs::read_to_string(&self.cfg)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("partitions = ").map(str::to_string))
            .unwrap_or_default();
        let ratios = Ratios {
            pages_per_s: kafka_rate / run_rate,
            cpu: (stages / self.pages) / (alone.cpu / alone.pages),
            broker_ms: 1000.0 * self.broker / self.pages,
        };
        println!(
            "{name} on kafka ({partitions} partitions per topic): {} pages, every one asked for in {:.1} s, {} indexed in {:.1} s ({kafka_rate:.0} pages/s), \
             gleaner {:.2} ms CPU per page; in-process {run_rate:.0} pages/s, {:.2} ms\n\
             {name}: pages/s kafka / in-process {:.3} (target >= 0.5); \
             gleaner CPU per page kafka / in-process {:.2} (target <= 1.5); \
             broker {:.2} ms CPU per page",
            self.pages,
            self.fetched_in.as_secs_f64(),
            self.docs,
            self.indexed_in.as_secs_f64(),
            1000.0 * stages / self.pages,
            1000.0 * alone.cpu / alone.pages,
            ratios.pages_per_s,
            ratios.cpu,
            ratios.broker_ms,
        );
        assert_eq!(
            self.docs, alone.docs,
            "{name}: both forms index the same articles"
        );
        ratios
    }
}

/// The children's CPU seconds from bash's `times` (its second line:
/// "0m1.234s 0m0.456s").
fn children_cpu(times: &str) -> Option<f64> {
    let line = times.lines().nth(1)?;
    let secs = |t: &str| -> Option<f64> {
        let (m, s) = t.strip_suffix('s')?.split_once('m')?;
        Some(m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?)
    };
    line.split_whitespace().map(secs).sum()
}
