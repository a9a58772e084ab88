//! `gleaner status`: where every stage stands. On Kafka, per stage and
//! partition of its input: the committed offset, the end, the lag, the
//! member that owns it and how long ago the stage last committed. For an
//! embedded run (`--data DIR`), what the run last wrote to DIR/status.json:
//! counts per topic and the queue before each reader.

use crate::commands::brokers;
use crate::{stages, Kafka};
use gleaner_core::kafka::{group_offsets, PartitionOffsets};
use gleaner_core::Config;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::ClientConfig;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

pub async fn run(cfg: &Config, kafka: &Kafka, data: Option<&Path>) -> anyhow::Result<()> {
    if let Some(dir) = data {
        return embedded(dir);
    }
    let cfg = cfg.clone();
    let brokers = brokers(&cfg, kafka);
    let text = tokio::task::spawn_blocking(move || on_kafka(&cfg, &brokers)).await??;
    print!("{text}");
    Ok(())
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
    let age = gleaner_core::util::unix_millis()
        .saturating_sub(v["updated_ms"].as_u64().unwrap_or(0)) as f64
        / 1000.0;
    println!(
        "run on {}: {} (status written {age:.1} s ago)",
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
    for placed in &flow.stages {
        let name = placed.spec.name();
        let group = format!("{}-{name}", cfg.kafka.group_prefix);
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", brokers)
            .set("group.id", &group)
            .set("enable.auto.commit", "false")
            .create()?;
        let mut topics = vec![cfg.topic_name(placed.input)];
        topics.extend(placed.spec.side_inputs().iter().map(|t| cfg.topic_name(*t)));
        let names: Vec<&str> = topics.iter().map(String::as_str).collect();
        let parts = group_offsets(&consumer, &names)?;
        let owners = owners(&consumer, &group);
        let total: i64 = parts.iter().map(PartitionOffsets::lag).sum();
        for p in &parts {
            let owner = owners
                .get(&(p.topic.clone(), p.partition))
                .map_or("-", String::as_str);
            let last = p
                .metadata
                .parse::<u64>()
                .map(|t| format!("{:.0} s ago", now.saturating_sub(t) as f64 / 1000.0))
                .unwrap_or_else(|_| "-".into());
            writeln!(
                out,
                "{name:<10} {:<28} {:>10} {:>10} {:>8}  {owner:<24} {last}",
                format!("{}[{}]", p.topic, p.partition),
                p.committed.map_or("-".to_string(), |c| c.to_string()),
                p.high,
                p.lag(),
            )?;
        }
        writeln!(
            out,
            "{name:<10} {:<28} {:>10} {:>10} {total:>8}  {} member(s)\n",
            "total",
            "",
            "",
            owners
                .values()
                .collect::<std::collections::HashSet<_>>()
                .len()
        )?;
    }
    Ok(out)
}

/// Which member (its client id: the group and instance name) owns each
/// partition, from the group's description.
fn owners(consumer: &BaseConsumer, group: &str) -> HashMap<(String, i32), String> {
    let mut owners = HashMap::new();
    let Ok(list) = consumer.fetch_group_list(Some(group), Duration::from_secs(5)) else {
        return owners;
    };
    for g in list.groups() {
        for m in g.members() {
            for tp in m.assignment().map(parse_assignment).unwrap_or_default() {
                owners.insert(tp, m.client_id().to_string());
            }
        }
    }
    owners
}

/// The partitions in a consumer-protocol assignment (Kafka's wire format:
/// version i16, then topics as [name: i16-length string, partitions: i32
/// array], then user data). Nothing on malformed input.
fn parse_assignment(bytes: &[u8]) -> Vec<(String, i32)> {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (b.get(..n)?, b.get(n..)?);
        *b = rest;
        Some(head)
    }
    fn i16_(b: &mut &[u8]) -> Option<i16> {
        take(b, 2).map(|s| i16::from_be_bytes([s[0], s[1]]))
    }
    fn i32_(b: &mut &[u8]) -> Option<i32> {
        take(b, 4).map(|s| i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    let mut b = bytes;
    let mut out = Vec::new();
    let parse = |b: &mut &[u8], out: &mut Vec<(String, i32)>| -> Option<()> {
        i16_(b)?;
        for _ in 0..i32_(b)?.max(0) {
            let len = i16_(b)?.max(0) as usize;
            let topic = String::from_utf8_lossy(take(b, len)?).into_owned();
            for _ in 0..i32_(b)?.max(0) {
                out.push((topic.clone(), i32_(b)?));
            }
        }
        Some(())
    };
    if parse(&mut b, &mut out).is_none() {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_consumer_protocol_assignment() {
        let mut b = vec![0, 1, 0, 0, 0, 2];
        for (topic, parts) in [("g.seeds", vec![0i32, 3]), ("g.frontier", vec![1])] {
            b.extend((topic.len() as i16).to_be_bytes());
            b.extend(topic.as_bytes());
            b.extend((parts.len() as i32).to_be_bytes());
            for p in parts {
                b.extend(p.to_be_bytes());
            }
        }
        b.extend([0, 0, 0, 0]); // no user data
        assert_eq!(
            parse_assignment(&b),
            vec![
                ("g.seeds".to_string(), 0),
                ("g.seeds".to_string(), 3),
                ("g.frontier".to_string(), 1)
            ]
        );
        assert!(parse_assignment(&b[..9]).is_empty(), "truncated");
        assert!(parse_assignment(&[0, 1, 0x7f, 0xff, 0xff, 0xff]).is_empty());
    }
}
