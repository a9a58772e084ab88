//! `gleaner status`: where every stage stands. On Kafka, per stage and
//! partition of its input: the committed offset, the end, the lag, the
//! instance that owns it and how long ago it last committed (from the
//! instances' reports on the status topic). For an
//! embedded run (`--data DIR`), what the run last wrote to DIR/status.json:
//! counts per topic and the queue before each reader.

use crate::args::Common;
use crate::args::Kafka;
use crate::commands::brokers;
use crate::commands::{config, init_logs};
use crate::stages;
use clap::Args;
use gleaner_core::messages::StageStatus;
use gleaner_core::Config;
use gleaner_kafka::{group_offsets, read_records, PartitionOffsets};
use rdkafka::consumer::BaseConsumer;
use rdkafka::ClientConfig;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

pub async fn run(cfg: &Config, kafka: &Kafka, data: Option<&Path>) -> anyhow::Result<()> {
    if let Some(dir) = data {
        return embedded(dir);
    }
    let cfg = cfg.clone();
    let brokers = brokers(&cfg, kafka);
    crate::commands::broker_reachable(&brokers).await?;
    let text = tokio::task::spawn_blocking(move || on_kafka(&cfg, &brokers)).await??;
    print!("{text}");
    Ok(())
}

/// How long ago, from milliseconds: seconds with a tenth under a minute
/// (a live run writes its status every second), else in jiff's friendly
/// units ("32m 13s ago", where it said "1933.9 s ago").
fn ago(ms: u64) -> String {
    if ms < 60_000 {
        return format!("{:.1} s ago", ms as f64 / 1000.0);
    }
    let secs = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    format!("{:#} ago", jiff::SignedDuration::from_secs(secs))
}

/// The status of an embedded run, from the file it refreshes every second.
fn embedded(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join("status.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}; is {} the --data of a gleaner run?",
            path.display(),
            dir.display()
        )
    })?;
    let v: serde_json::Value = serde_json::from_str(&text)?;
    let running = crate::datadir::DataLock::held_by_a_run(dir);
    let age = ago(
        gleaner_core::util::unix_millis().saturating_sub(v["updated_ms"].as_u64().unwrap_or(0))
    );
    println!(
        "run on {}: {} (status written {age})",
        dir.display(),
        if running { "running" } else { "not running" }
    );
    println!("{:<14} {:>10} {:>10}", "topic", "produced", "queued");
    let empty = serde_json::Map::new();
    let produced = v["produced"].as_object().unwrap_or(&empty);
    let queued = v["queued"].as_object().unwrap_or(&empty);
    for (topic, n) in produced {
        let q = queued.get(topic).and_then(|q| q.as_u64());
        println!(
            "{topic:<14} {:>10} {:>10}",
            n.as_u64().unwrap_or(0),
            q.map_or("-".to_string(), |q| q.to_string())
        );
    }
    println!(
        "in flight: {} (queued, being handled or held by a stage)",
        v["in_flight"]
    );
    Ok(())
}

fn on_kafka(cfg: &Config, brokers: &str) -> anyhow::Result<String> {
    use std::fmt::Write;
    let registry = stages::registry();
    let flow = stages::flow(cfg, &registry)?;
    let mut out = String::new();
    writeln!(
        out,
        "{:<10} {:<28} {:>10} {:>10} {:>8}  {:<24} last commit",
        "stage", "partition", "committed", "end", "lag", "owner"
    )?;
    let now = gleaner_core::util::unix_millis();
    let reports = reports(cfg, brokers);
    let owners = owners(&reports, now);
    let chains = chains(&reports, now);
    for placed in &flow.stages {
        let name = placed.spec.name();
        if let Some(chain) = chains.runs_in(name) {
            writeln!(
                out,
                "{name:<10} runs in the {chain} service (its group commits for it)\n"
            )?;
            continue;
        }
        let group = format!("{}-{name}", cfg.kafka.group_prefix);
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", brokers)
            .set("group.id", &group)
            .set("enable.auto.commit", "false")
            .create()?;
        let mut topics = vec![cfg.topic_name(placed.input)];
        // Topics every instance reads whole are not the group's to commit.
        // The side inputs of the stages chained after it are its group's.
        let members = chains.after(name).iter().filter_map(|m| flow.get(m));
        for spec in std::iter::once(placed.spec).chain(members.map(|p| p.spec)) {
            let whole = spec.every_instance_reads();
            for t in spec.side_inputs().iter().filter(|t| !whole.contains(t)) {
                let topic = cfg.topic_name(*t);
                if !topics.contains(&topic) {
                    topics.push(topic);
                }
            }
        }
        let names: Vec<&str> = topics.iter().map(String::as_str).collect();
        let parts = group_offsets(&consumer, &names)?;
        let total: i64 = parts.iter().map(PartitionOffsets::lag).sum();
        for p in &parts {
            let (owner, reported) = owners
                .get(&format!("{}[{}]", p.topic, p.partition))
                .cloned()
                .unwrap_or_else(|| ("-".into(), None));
            // The commit's own metadata where the broker keeps it.
            let last = p
                .metadata
                .parse::<u64>()
                .ok()
                .or(reported)
                .map(|t| ago(now.saturating_sub(t)))
                .unwrap_or_else(|| "-".into());
            writeln!(
                out,
                "{name:<10} {:<28} {:>10} {:>10} {:>8}  {owner:<24} {last}",
                format!("{}[{}]", p.topic, p.partition),
                p.committed.map_or("-".to_string(), |c| c.to_string()),
                p.high,
                p.lag(),
            )?;
        }
        let waiting = standing_by(&reports, name, now);
        writeln!(
            out,
            "{name:<10} {:<28} {:>10} {:>10} {total:>8}  {} member(s){}\n",
            "total",
            "",
            "",
            owners
                .values()
                .collect::<std::collections::HashSet<_>>()
                .len(),
            if waiting.is_empty() {
                String::new()
            } else {
                format!("; standing by: {}", waiting.join(", "))
            }
        )?;
    }
    Ok(out)
}

/// The chains live instances report: which stages run after which in one
/// process (`gleaner stage fetch+clean+extract`).
#[derive(Default)]
struct Chains {
    /// First stage -> the stages after it.
    after: HashMap<String, Vec<String>>,
}

impl Chains {
    fn after(&self, first: &str) -> &[String] {
        self.after.get(first).map_or(&[], Vec::as_slice)
    }

    /// The chain `stage` runs in after another stage, as `a+b+c`.
    fn runs_in(&self, stage: &str) -> Option<String> {
        self.after
            .iter()
            .find(|(_, rest)| rest.iter().any(|s| s == stage))
            .map(|(first, rest)| format!("{first}+{}", rest.join("+")))
    }
}

fn chains(reports: &[StageStatus], now: u64) -> Chains {
    let mut chains = Chains::default();
    for r in reports {
        if !r.chained.is_empty() && now.saturating_sub(r.at_ms) < STALE_MS {
            chains.after.insert(r.stage.clone(), r.chained.clone());
        }
    }
    chains
}

/// A report older than this is shown as stale: its instance is probably gone.
const STALE_MS: u64 = 30_000;

/// The latest report of every stage instance, from the status topic.
fn reports(cfg: &Config, brokers: &str) -> Vec<StageStatus> {
    let topic = cfg.topic_name(gleaner_core::Topic::STATUS);
    let mut latest: HashMap<String, StageStatus> = HashMap::new();
    for (key, value) in read_records(brokers, &topic, 2000).unwrap_or_default() {
        let (Some(key), Some(value)) = (key, value) else {
            continue;
        };
        if let Ok(s) = serde_json::from_slice::<StageStatus>(&value) {
            if latest.get(&key).is_none_or(|old| old.at_ms <= s.at_ms) {
                latest.insert(key, s);
            }
        }
    }
    latest.into_values().collect()
}

/// Who owns each partition, by the instances' latest reports: the owner's
/// name (with "stale" when its report is old) and its last commit time.
fn owners(reports: &[StageStatus], now: u64) -> HashMap<String, (String, Option<u64>)> {
    let mut owners = HashMap::new();
    let mut by_age: Vec<&StageStatus> = reports.iter().collect();
    // The freshest report wins a partition two instances claim.
    by_age.sort_by_key(|r| r.at_ms);
    for r in by_age {
        let stale = now.saturating_sub(r.at_ms) > STALE_MS;
        let name = format!(
            "{}/{}{}",
            r.stage,
            r.instance,
            if stale { " (stale)" } else { "" }
        );
        for p in &r.owned {
            owners.insert(p.clone(), (name.clone(), r.last_commit_ms));
        }
    }
    owners
}

/// The live instances of `stage` that own no partition (a standby of
/// dedup or stories, or an instance beyond the partition count), by name.
fn standing_by(reports: &[StageStatus], stage: &str, now: u64) -> Vec<String> {
    let mut names: Vec<String> = reports
        .iter()
        .filter(|r| r.stage == stage && r.owned.is_empty())
        .filter(|r| now.saturating_sub(r.at_ms) <= STALE_MS)
        .map(|r| format!("{}/{}", r.stage, r.instance))
        .collect();
    names.sort();
    names
}

/// The options of `gleaner status`.
#[derive(Args)]
pub struct StatusCmd {
    /// Show the embedded run working on this data directory instead.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl StatusCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        init_logs("warn");
        run(&config(&self.common)?, &self.kafka, self.data.as_deref()).await?;
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_in_units() {
        assert_eq!(ago(1_500), "1.5 s ago");
        assert_eq!(ago(1_933_900), "32m 13s ago");
        assert_eq!(ago(90_061_000), "25h 1m 1s ago");
    }

    fn report(instance: &str, owned: &[&str], at_ms: u64) -> StageStatus {
        StageStatus {
            stage: "clean".into(),
            instance: instance.into(),
            host: "h".into(),
            pid: 1,
            owned: owned.iter().map(|s| s.to_string()).collect(),
            last_commit_ms: Some(at_ms - 100),
            handled: 0,
            at_ms,
            active_since_ms: None,
            chained: Vec::new(),
        }
    }

    #[test]
    fn a_live_chain_names_where_its_later_stages_run() {
        let now = 100_000;
        let mut chain = report("1", &["p[0]"], now - 1_000);
        chain.stage = "fetch".into();
        chain.chained = vec!["clean".into(), "extract".into()];
        let mut gone = report("1", &[], now - 60_000);
        gone.stage = "summarize".into();
        gone.chained = vec!["index".into()];
        let c = chains(&[chain, gone], now);
        assert_eq!(c.runs_in("extract").as_deref(), Some("fetch+clean+extract"));
        assert_eq!(c.after("fetch"), ["clean", "extract"]);
        assert_eq!(c.runs_in("fetch"), None);
        // A chain whose last report is stale no longer speaks for its stages.
        assert_eq!(c.runs_in("index"), None);
    }

    #[test]
    fn the_freshest_report_owns_a_partition_and_old_ones_are_stale() {
        let now = 100_000;
        let o = owners(
            &[
                report("1", &["p[0]", "p[1]"], now - 60_000),
                report("2", &["p[1]"], now - 1_000),
            ],
            now,
        );
        assert_eq!(o["p[0]"].0, "clean/1 (stale)");
        assert_eq!(o["p[1]"], ("clean/2".to_string(), Some(now - 1_100)));
    }

    #[test]
    fn live_instances_without_partitions_are_standing_by() {
        let now = 100_000;
        let reports = [
            report("1", &["p[0]"], now - 1_000),
            report("b", &[], now - 2_000),
            report("gone", &[], now - 60_000),
        ];
        assert_eq!(standing_by(&reports, "clean", now), ["clean/b"]);
        assert!(standing_by(&reports, "dedup", now).is_empty());
    }
}
