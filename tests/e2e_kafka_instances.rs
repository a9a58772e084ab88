//! Instances of one stage on the dev broker: a namesake (a second
//! instance under a name a live one has) waits instead of consuming; a
//! second dedup stands by and takes over when the active one dies.

mod common;

use common::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// `gleaner ARGS` on the broker, its log (without colours) in `log`.
fn start_logged(args: &[&str], cfg: &Path, brokers: &str, log: &Path) -> std::process::Child {
    gleaner(args, cfg, brokers)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

fn read(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Two instances of a stage under one name (the dev broker does not fence
/// them): the second says so in one line and waits, consuming nothing,
/// while the first runs; it takes over once the first is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_a_namesake_waits_for_the_live_instance() {
    let Some(brokers) = test_brokers("kafka_a_namesake_waits_for_the_live_instance") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = format!("namesake{}", unique());
    let cfg = test_config(tmp.path(), Some(&prefix));
    assert!(gleaner(&["topics"], &cfg, &brokers)
        .status()
        .unwrap()
        .success());
    let start = |n: u32| {
        let log = tmp.path().join(format!("clean-{n}.log"));
        (
            start_logged(&["clean", "--instance", "same"], &cfg, &brokers, &log),
            log,
        )
    };
    let until = |p: &Path, what: &str, secs: u64| {
        let t0 = Instant::now();
        while !read(p).contains(what) {
            assert!(
                t0.elapsed() < Duration::from_secs(secs),
                "no {what:?} in {secs} s: {}",
                read(p)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let (mut first, first_log) = start(1);
    until(&first_log, "partitions assigned", 60);
    // Its first report on the status topic comes with its partitions.
    std::thread::sleep(Duration::from_secs(2));
    let (mut second, second_log) = start(2);
    until(
        &second_log,
        "another instance named \"same\" is running",
        30,
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !read(&second_log).contains("partitions assigned"),
        "the namesake consumed: {}",
        read(&second_log)
    );
    first.kill().unwrap();
    first.wait().unwrap();
    // Its reports stop; after three report intervals the second joins.
    until(&second_log, "partitions assigned", 60);
    let _ = second.kill();
    let _ = second.wait();
}

/// Two dedup instances under their own names: one is active, the other
/// says it stands by and consumes nothing; when the active one dies the
/// standby takes over with the window rebuilt from the topics, so a
/// repost of an article the dead one kept is still recognised.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_a_second_dedup_stands_by_and_takes_over() {
    let Some(brokers) = test_brokers("kafka_a_second_dedup_stands_by_and_takes_over") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg_path, cfg) = kafka_test_config(tmp.path(), "standby", &brokers).await;
    let producer = gleaner_kafka::producer(&cfg, &brokers).unwrap();
    let produce = |id: &str| {
        let article = harbour_article(id, &format!("http://{id}.test/story"));
        let key = format!("{id}.test");
        let (producer, cfg) = (&producer, &cfg);
        async move { produce_article(producer, cfg, &key, &article).await }
    };
    let records = |t: &str| read_topic(&brokers, &format!("{prefix}.{t}"));
    let start = |instance: &str| {
        let log = tmp.path().join(format!("dedup-{instance}.log"));
        let args = ["dedup", "--instance", instance];
        (start_logged(&args, &cfg_path, &brokers, &log), log)
    };
    let second_log_path = tmp.path().join("dedup-b.log");
    let until = |what: &dyn Fn() -> bool, secs: u64, why: &str| {
        let t0 = Instant::now();
        while !what() {
            assert!(
                t0.elapsed() < Duration::from_secs(secs),
                "{why}; the second's log:\n{}",
                read(&second_log_path)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let (mut first, first_log) = start("a");
    until(
        &|| read(&first_log).contains("partitions assigned"),
        60,
        "the first dedup was never given partitions",
    );
    produce("original").await;
    until(
        &|| records("unique").len() == 1,
        60,
        "the original never came",
    );
    let (mut second, second_log) = start("b");
    until(
        &|| read(&second_log).contains("standby: instance \"a\""),
        30,
        "the second dedup did not stand by",
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !read(&second_log).contains("partitions assigned"),
        "the standby consumed: {}",
        read(&second_log)
    );
    let status = gleaner(&["status"], &cfg_path, &brokers).output().unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains("standing by: dedup/b"),
        "gleaner status does not show the standby:\n{status}"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    until(
        &|| read(&second_log).contains("partitions assigned"),
        60,
        "the standby never took over",
    );
    produce("repost").await;
    until(
        &|| records("duplicates").len() == 1,
        60,
        "the repost was not recognised after the handover",
    );
    let dup: gleaner_core::messages::Duplicate =
        serde_json::from_slice(&records("duplicates")[0]).unwrap();
    assert_eq!(
        (dup.id.as_str(), dup.original_id.as_str()),
        ("repost", "original")
    );
    assert_eq!(records("unique").len(), 1);
    let _ = second.kill();
    let _ = second.wait();
}
