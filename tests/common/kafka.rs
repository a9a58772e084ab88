//! What the tests on the dev broker share: its address, topics of their
//! own, reading a topic whole, and producing an article.

use super::*;

/// Every record on a topic, read from the beginning of each partition.
pub fn read_topic(brokers: &str, topic: &str) -> Vec<Vec<u8>> {
    read_topic_partitions(brokers, topic)
        .into_iter()
        .map(|(_, payload)| payload)
        .collect()
}

/// Every record on a topic with the partition it is on.
pub fn read_topic_partitions(brokers: &str, topic: &str) -> Vec<(i32, Vec<u8>)> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::error::KafkaError;
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("e2e-reader-{}", unique()))
        .set("enable.partition.eof", "true")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let md = c
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .unwrap();
    let parts = md.topics()[0].partitions().len();
    assert!(parts > 0, "topic {topic} has no partitions");
    let mut tpl = TopicPartitionList::new();
    for p in 0..parts {
        tpl.add_partition_offset(topic, p as i32, Offset::Beginning)
            .unwrap();
    }
    c.assign(&tpl).unwrap();
    let (mut eof, mut out) = (BTreeSet::new(), Vec::new());
    let mut last = Instant::now();
    // Until every partition reports its end, or nothing came for 5 s.
    while eof.len() < parts && last.elapsed() < Duration::from_secs(5) {
        match c.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                out.push((m.partition(), m.payload().unwrap_or_default().to_vec()));
                last = Instant::now();
            }
            Some(Err(KafkaError::PartitionEOF(p))) => {
                eof.insert(p);
            }
            Some(Err(e)) => panic!("reading {topic}: {e}"),
            None => {}
        }
    }
    out
}

/// The broker scripts/test.sh started, or `None` (with a note) outside it;
/// under CI a missing broker is a failure, not a skip.
pub fn test_brokers(test: &str) -> Option<String> {
    match std::env::var("GLEANER_TEST_BROKERS") {
        Ok(b) => Some(b),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs {test} against a broker: use scripts/test.sh"
            );
            eprintln!("SKIPPED {test}: GLEANER_TEST_BROKERS is not set (scripts/test.sh sets it)");
            None
        }
    }
}

/// A test config with topics of its own (prefix `name` + a unique
/// suffix), created on the broker: the prefix, the file and the config.
pub async fn kafka_test_config(
    dir: &Path,
    name: &str,
    brokers: &str,
) -> (String, PathBuf, gleaner_core::Config) {
    let prefix = format!("{name}{}", unique());
    let path = test_config(dir, Some(&prefix));
    let cfg = gleaner_core::Config::load(Some(&path)).unwrap();
    // The built-in topics and the stories stage's own output.
    let mut topics = gleaner_core::Topic::BUILT_IN.to_vec();
    topics.push(gleaner_stories::stage::GROUPED);
    gleaner_kafka::create_topics(&cfg, brokers, &topics)
        .await
        .unwrap();
    (prefix, path, cfg)
}

/// One report of one event (a harbour bridge reopens), as `id` at `url`:
/// the same text under two ids is a repost.
pub fn harbour_article(id: &str, url: &str) -> Article {
    Article {
        id: id.into(),
        url: url.into(),
        title: "Harbour bridge reopens".into(),
        author: None,
        date: None,
        language: None,
        text: "The harbour bridge reopened to traffic on Monday after eight months of repairs that cost the city \
               more than forty million dollars. Engineers replaced the corroded suspension cables."
            .into(),
        extractor: "auto".into(),
        fetched_at: String::new(),
        cluster: None,
        story: None,
        ..Default::default()
    }
}

/// Produces `article` on the articles topic under `key`, acknowledged.
pub async fn produce_article(
    producer: &gleaner_kafka::Producer,
    cfg: &gleaner_core::Config,
    key: &str,
    article: &Article,
) {
    let out = gleaner_core::stage::Output::of(gleaner_core::Topic::ARTICLES, key, article);
    gleaner_kafka::produce_all(producer, cfg, &[out])
        .await
        .unwrap()
}
