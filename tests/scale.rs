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
        let mut farm = Farm::new(&broker.addr(), "scale", DELAY_MS);
        for (stage, n) in STAGES.iter().zip(layout.instances) {
            for i in 1..=n {
                farm.spawn(stage, &i.to_string());
            }
        }
        // Every instance has joined its group before the seeds go in.
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(60) {
            let joined = STAGES.iter().zip(layout.instances).all(|(s, n)| {
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
        let seeds: Vec<String> = bases.iter().map(|b| format!("{b}/")).collect();
        // Depth 1, as bench-e2e: the hosts' index pages and their pages. (At
        // the default depth 2 the pages' own site links, thousands of them,
        // are fetched too and answer 404.)
        let mut args = vec!["seed", "--depth", "1"];
        args.extend(seeds.iter().map(String::as_str));
        let started = Instant::now();
        assert!(gleaner(&args, &farm.cfg, &farm.brokers)
            .status()
            .unwrap()
            .success());
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
        let indexed_in = still.duration_since(started);
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
        let fetched_in = fetched_in.unwrap_or(started.elapsed());
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
