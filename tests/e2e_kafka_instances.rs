//! Instances of one stage on the dev broker: a namesake (a second
//! instance under a name a live one has) waits instead of consuming.

mod common;

use common::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

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
        let child = gleaner(&["clean", "--instance", "same"], &cfg, &brokers)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        (child, log)
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
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
