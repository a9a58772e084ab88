//! End to end: the example news site (examples/site) served by a real HTTP
//! server on loopback, crawled by one process per stage
//! on a real Kafka-protocol broker (GLEANER_TEST_BROKERS, started by
//! scripts/test.sh). Both must give the same result:
//! - every article is searchable by a phrase from its body;
//! - the repost is in `duplicates` and is not a second hit, while a
//!   different report of the same event is kept;
//! - navigation, sidebar and footer text is in no article;
//! - the path robots.txt disallows was never requested;
//! - no message is lost: the counts on every topic add up.
//!
//! On Kafka two index instances write a shard each; searched as one they
//! give what one index of the same topic gives.

mod common;

use common::*;
use gleaner_core::messages::{Article, DeadLetter, Duplicate};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_services_end_to_end() {
    let Some(brokers) = test_brokers("kafka_services_end_to_end") else {
        return;
    };
    // Two instances of every stage that scales out: they share the work
    // (the checks below find nothing doubled or lost).
    let services = |data: &str, data2: &str| -> Vec<Vec<String>> {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect();
        vec![
            v(&["fetch", "--allow-private", "--instance", "1"]),
            v(&["fetch", "--allow-private", "--instance", "2"]),
            v(&["clean", "--instance", "1"]),
            v(&["clean", "--instance", "2"]),
            v(&["extract", "--instance", "1"]),
            v(&["extract", "--instance", "2"]),
            v(&["dedup"]),
            v(&["stories"]),
            v(&["summarize", "--instance", "1"]),
            v(&["summarize", "--instance", "2"]),
            v(&["index", "--data", data, "--instance", "1"]),
            v(&["index", "--data", data2, "--instance", "2"]),
        ]
    };
    end_to_end(&brokers, &services, "summarized", &[]).await;
}

/// The same crawl with stages chained into services (`gleaner stage
/// fetch+clean+extract`, `summarize+index`), two instances of each chain:
/// the same articles, stories, copies and counts, and the topics between
/// chained stages left empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chained_services_end_to_end() {
    let Some(brokers) = test_brokers("chained_services_end_to_end") else {
        return;
    };
    // The chains serve their metrics: what crossed the links between
    // their stages is counted there, as those topics are not written.
    let metrics: Vec<String> = (0..4).map(|_| free_addr()).collect();
    let services = |data: &str, data2: &str| -> Vec<Vec<String>> {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect();
        let fetch = "fetch+clean+extract";
        vec![
            v(&[
                "stage",
                fetch,
                "--allow-private",
                "--metrics",
                &metrics[0],
                "--instance",
                "1",
            ]),
            v(&[
                "stage",
                fetch,
                "--allow-private",
                "--metrics",
                &metrics[1],
                "--instance",
                "2",
            ]),
            v(&["dedup"]),
            v(&["stories"]),
            v(&[
                "stage",
                "summarize+index",
                "--data",
                data,
                "--metrics",
                &metrics[2],
                "--instance",
                "1",
            ]),
            v(&[
                "stage",
                "summarize+index",
                "--data",
                data2,
                "--metrics",
                &metrics[3],
                "--instance",
                "2",
            ]),
        ]
    };
    end_to_end(
        &brokers,
        &services,
        "grouped",
        &["pages", "cleaned", "summarized"],
    )
    .await;
}

/// The example site crawled by `services` (given the two index data
/// directories), whose index instances read `index_input`; `unwritten`:
/// the topics between chained stages, which must stay empty (what
/// crossed them is then read from the `--metrics` of the services that
/// serve them: the pages clean and the cleaned records extract took in,
/// the summaries summarize handed on).
async fn end_to_end(
    brokers: &str,
    services: &dyn Fn(&str, &str) -> Vec<Vec<String>>,
    index_input: &str,
    unwritten: &[&str],
) {
    let brokers = brokers.to_string();
    let (base, log) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let prefix = format!("e2e{}", unique());
    let cfg = test_config(tmp.path(), Some(&prefix));
    let data = tmp.path().join("data");
    succeeded(&mut gleaner(&["topics"], &cfg, &brokers));

    let started = Instant::now();
    let data_arg = data.to_string_lossy().into_owned();
    let data2 = tmp.path().join("data2");
    let data2_arg = data2.to_string_lossy().into_owned();
    let shards = vec![data.clone(), data2.clone()];
    let shard_dirs = vec![data.join("index"), data2.join("index")];
    let services = services(&data_arg, &data2_arg);
    // `gleaner stage a+b` logs as a+b.
    let log_name = |a: &[String]| {
        let name = if a[0] == "stage" { &a[1] } else { &a[0] };
        format!("{name}-{}.log", a.last().unwrap().replace('/', "_"))
    };
    assert_eq!(
        services
            .iter()
            .map(|a| log_name(a))
            .collect::<BTreeSet<_>>()
            .len(),
        services.len(),
        "a log per service"
    );
    let mut children = Vec::new();
    for args in &services {
        let log_file = std::fs::File::create(tmp.path().join(log_name(args))).unwrap();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = gleaner(&argv, &cfg, &brokers)
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .unwrap();
        children.push((log_name(args), child));
    }
    // Both index instances own a partition of `summarized` before the
    // crawl starts, so that neither takes the other's share while it joins.
    let index_logs: Vec<_> = services
        .iter()
        .filter(|a| a.iter().any(|x| x == "--data"))
        .map(|a| tmp.path().join(log_name(a)))
        .collect();
    let settled = |log: &Path| {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        text.lines()
            .rfind(|l| l.contains("partitions assigned") || l.contains("partitions revoked"))
            .is_some_and(|l| {
                l.contains("assigned") && l.matches(&format!(".{index_input}[")).count() == 1
            })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut all_settled = false;
    while !all_settled && Instant::now() < deadline {
        all_settled = index_logs.iter().all(|l| settled(l));
        if !all_settled {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    eprintln!(
        "index instances own a partition each: {all_settled} ({:.1}s after start)",
        started.elapsed().as_secs_f64()
    );
    let seeded = Instant::now();
    succeeded(&mut gleaner(&["seed", &format!("{base}/")], &cfg, &brokers));

    // Wait until every article is searchable and the topics stop moving.
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut docs = 0;
    while Instant::now() < deadline {
        docs = gleaner_index::SearchIndex::open_shards(&shard_dirs, 200)
            .map(|s| s.num_docs())
            .unwrap_or(0);
        if docs >= ARTICLES.len() as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let searchable = seeded.elapsed();
    let logs = |tmp: &Path| {
        services
            .iter()
            .map(|a| {
                format!(
                    "--- {}\n{}",
                    a.join(" "),
                    std::fs::read_to_string(tmp.join(log_name(a))).unwrap_or_default()
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
        ["pages", "dead-letter", "skipped", "articles"]
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

    // What crossed each link, from the services' metrics before they
    // stop: what the stage after it took in, or what the stage before it
    // handed on.
    let mut crossed: BTreeMap<&str, u64> = BTreeMap::new();
    for args in &services {
        let Some(at) = args.iter().position(|a| a == "--metrics") else {
            continue;
        };
        let url = format!("http://{}/metrics", args[at + 1]);
        let (status, text) = http_get(&url).await.expect("metrics answer");
        assert_eq!(status, 200, "{url}");
        let counted = [
            ("pages", "gleaner_stage_inputs_total", "stage=\"clean\""),
            ("cleaned", "gleaner_stage_inputs_total", "stage=\"extract\""),
            (
                "summarized",
                "gleaner_stage_outputs_total",
                "stage=\"summarize\",topic=\"summarized\"",
            ),
        ];
        for (link, name, labels) in counted {
            *crossed.entry(link).or_default() += metric(&text, name, labels);
        }
    }
    // `gleaner status` says where chained stages run (their groups idle).
    if !unwritten.is_empty() {
        let status = succeeded(&mut gleaner(&["status"], &cfg, &brokers));
        let text = String::from_utf8_lossy(&status.stdout);
        for line in [
            "clean      runs in the fetch+clean+extract service",
            "index      runs in the summarize+index service",
        ] {
            assert!(text.contains(line), "{line:?} in:\n{text}");
        }
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
        let records = read(t).len() as u64;
        if unwritten.contains(&t) {
            assert_eq!(records, 0, "{t} lies between chained stages: not written");
            // Extract's inputs are the cleaned records: it reads no rules
            // here.
            assert!(read("rules").is_empty());
            produced.insert(t.to_string(), crossed[t]);
        } else {
            produced.insert(t.to_string(), records);
        }
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
    let skipped: Vec<DeadLetter> = parse("skipped")
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    produced.insert("dead-letter".into(), dead_letters.len() as u64);
    produced.insert("skipped".into(), skipped.len() as u64);
    assert_eq!(produced["seeds"], 1);
    let o = Outcome {
        produced,
        articles,
        duplicates,
        dead_letters,
        skipped,
        index_docs: gleaner_index::SearchIndex::open_shards(&shard_dirs, 200)
            .unwrap()
            .num_docs(),
        shards: shards.clone(),
    };
    check(&base, &log, &cfg, &data, &o);
    // Articles are keyed by id: when they fall on both partitions, each
    // shard holds some (with one partition each, as settled above).
    let on_partitions: BTreeSet<i32> =
        read_topic_partitions(&brokers, &format!("{prefix}.summarized"))
            .into_iter()
            .map(|(p, _)| p)
            .collect();
    if on_partitions.len() > 1 {
        for dir in &shard_dirs {
            let one = gleaner_index::SearchIndex::open(dir, 200)
                .unwrap()
                .num_docs();
            assert!(
                one > 0,
                "{} holds no article: one shard took all\n{}",
                dir.display(),
                logs(tmp.path())
            );
        }
    }
    // One more index of `summarized`, which a chain does not write.
    if !unwritten.contains(&"summarized") {
        same_hits_as_one_index(&cfg, &brokers, &prefix, tmp.path(), &shard_dirs);
    }
}

/// One more index instance, in a group of its own, indexes the same topic
/// into one index: the shards searched as one give its totals, facets and
/// hits, scores included.
fn same_hits_as_one_index(
    cfg: &Path,
    brokers: &str,
    prefix: &str,
    tmp: &Path,
    shard_dirs: &[std::path::PathBuf],
) {
    let one_cfg = tmp.join("one.toml");
    let text = set(
        std::fs::read_to_string(cfg).unwrap(),
        &format!("group_prefix = \"{prefix}\""),
        &format!("group_prefix = \"{prefix}one\""),
    );
    std::fs::write(&one_cfg, text).unwrap();
    let one_data = tmp.join("one");
    let mut index = gleaner(
        &[
            "index",
            "--data",
            &one_data.to_string_lossy(),
            "--instance",
            "one",
        ],
        &one_cfg,
        brokers,
    )
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(tmp.join("index-one.log")).unwrap())
    .spawn()
    .unwrap();
    // Every article in, and every record of its topics (the reposts on
    // `duplicates` too) read and committed: an index stopped at its last
    // article could miss a repost the shards list among the copies.
    let group: rdkafka::consumer::BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("{prefix}one-index"))
        .create()
        .unwrap();
    let inputs = [
        format!("{prefix}.summarized"),
        format!("{prefix}.duplicates"),
    ];
    let caught_up = || {
        let topics: Vec<&str> = inputs.iter().map(String::as_str).collect();
        gleaner_kafka::group_offsets(&group, &topics)
            .is_ok_and(|parts| parts.iter().all(|p| p.lag() == 0))
    };
    let t0 = Instant::now();
    let one = loop {
        let docs = gleaner_index::SearchIndex::open(&one_data.join("index"), 200)
            .map(|s| s.num_docs())
            .unwrap_or(0);
        if docs >= ARTICLES.len() as u64 && caught_up() {
            break gleaner_index::SearchIndex::open(&one_data.join("index"), 200).unwrap();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the single index has {docs} articles: {}",
            std::fs::read_to_string(tmp.join("index-one.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    // Stopped, it commits what it read of the story log under its own
    // group, so that a restart goes on from there.
    let term = Command::new("kill")
        .args(["-TERM", &index.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success() && index.wait().unwrap().success());
    let reader: rdkafka::consumer::BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("{prefix}one-index-one-whole"))
        .create()
        .unwrap();
    let story_log = format!("{prefix}.story-log");
    let read = gleaner_kafka::group_offsets(&reader, &[&story_log]).unwrap();
    assert!(read.iter().any(|p| p.high > 0), "no story log: {read:?}");
    assert!(
        read.iter().all(|p| p.lag() == 0),
        "the story log read whole is not committed: {:?}",
        read.iter()
            .map(|p| (p.partition, p.committed, p.high))
            .collect::<Vec<_>>()
    );
    let shards = gleaner_index::SearchIndex::open_shards(shard_dirs, 200).unwrap();
    let shown = |r: &gleaner_index::SearchResults| {
        let mut v: Vec<(i64, String, Option<String>, u32)> = r
            .hits
            .iter()
            .map(|h| {
                let score = (h.score * 1000.0).round() as i64;
                (-score, h.url.clone(), h.story.clone(), h.copies)
            })
            .collect();
        // Equal scores may come in either order.
        v.sort();
        v
    };
    let mut queries: Vec<String> = ARTICLES.iter().map(|(_, p)| p.to_string()).collect();
    queries.extend(["bridge", "the council", "harbour OR budget", ""].map(String::from));
    for q in queries {
        let ask = gleaner_index::SearchRequest {
            q: q.clone(),
            limit: 50,
            facets: true,
            ..Default::default()
        };
        let (a, b) = (one.find(&ask).unwrap(), shards.find(&ask).unwrap());
        assert_eq!((a.total, &a.facets), (b.total, &b.facets), "{q:?}");
        assert_eq!(shown(&a), shown(&b), "{q:?}");
    }
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
        redirects: vec![],
        fetch_ms: None,
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
        made_by: None,
    };
    let producer = gleaner_kafka::producer(&cfg, &brokers).unwrap();
    gleaner_kafka::produce_all(&producer, &cfg, &[page_out.clone(), noise_out])
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

/// The sum of a counter's series whose labels include `label` (`stage="x"`)
/// in Prometheus text.
fn metric(text: &str, name: &str, label: &str) -> u64 {
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) && l.contains(label))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}
