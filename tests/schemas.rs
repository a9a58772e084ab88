//! The JSON Schemas in `schemas/` describe the messages on each topic, for
//! consumers in any language. This test keeps them and the Rust types in
//! step: each file must equal the schema derived from its type. After a
//! deliberate change to a message, regenerate with
//! `GLEANER_WRITE_SCHEMAS=1 cargo test -p gleaner --test schemas`.

use gleaner_core::messages::*;
use schemars::{schema_for, Schema};
use std::path::Path;

fn schemas() -> Vec<(&'static str, Schema)> {
    vec![
        ("seeds", schema_for!(Seed)),
        ("frontier", schema_for!(FrontierLink)),
        ("pages", schema_for!(Page)),
        ("cleaned", schema_for!(Cleaned)),
        ("articles", schema_for!(Article)),
        ("unique", schema_for!(Article)),
        ("duplicates", schema_for!(Duplicate)),
        ("summarized", schema_for!(Summarized)),
        ("rules", schema_for!(SiteRules)),
        ("dead-letter", schema_for!(DeadLetter)),
        ("skipped", schema_for!(DeadLetter)),
        ("status", schema_for!(StageStatus)),
        ("story-log", schema_for!(StoryEvent)),
        ("summary-cache", schema_for!(SummaryCacheEntry)),
        // The stories stage's own output: articles with their story id.
        ("grouped", schema_for!(Article)),
    ]
}

#[test]
fn schema_files_match_the_message_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let write = std::env::var_os("GLEANER_WRITE_SCHEMAS").is_some();
    for (topic, schema) in schemas() {
        let path = dir.join(format!("{topic}.schema.json"));
        let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if write {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let on_disk =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            on_disk,
            generated,
            "{} is out of date with the Rust type (see this file's header)",
            path.display()
        );
    }
}

/// Every topic of the flow has a schema, and a real message of each kind
/// has every property the schema requires.
#[test]
fn messages_carry_the_required_properties() {
    let article = Article {
        id: "1".into(),
        url: "http://x.test/a".into(),
        title: "t".into(),
        author: None,
        date: None,
        language: Some("en".into()),
        text: "body".into(),
        extractor: "auto".into(),
        fetched_at: "2026-01-01T00:00:00Z".into(),
        cluster: None,
        story: None,
        ..Default::default()
    };
    let summarized = Summarized {
        article: article.clone(),
        summaries: vec![],
        engine: "extractive".into(),
    };
    let samples: Vec<(&str, serde_json::Value)> = vec![
        ("articles", serde_json::to_value(&article).unwrap()),
        ("summarized", serde_json::to_value(&summarized).unwrap()),
        (
            "seeds",
            serde_json::to_value(Seed {
                url: "http://x.test/".into(),
                ..Seed::default()
            })
            .unwrap(),
        ),
    ];
    let all = schemas();
    // Every built-in topic, and the stories stage's own.
    assert_eq!(all.len(), gleaner_core::Topic::BUILT_IN.len() + 1);
    for (topic, value) in samples {
        let schema =
            serde_json::to_value(&all.iter().find(|(t, _)| *t == topic).unwrap().1).unwrap();
        for req in schema["required"].as_array().unwrap() {
            assert!(
                value.get(req.as_str().unwrap()).is_some(),
                "{topic} lacks required {req}"
            );
        }
    }
}
