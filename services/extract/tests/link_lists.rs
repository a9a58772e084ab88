//! The extract stage on a cleaned page that is a list of links.

use gleaner_core::stage::{Input, Output};
use gleaner_core::MapStage;
use gleaner_core::Topic;

/// Extract turns away pages that are not articles, saying why: an index
/// page whose main text is a list of headlines is mostly link text.
#[tokio::test]
async fn extract_sends_link_lists_to_the_dead_letter_topic() {
    let site = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/site");
    let cleaned = |file: &str| {
        let html = std::fs::read_to_string(site.join(file)).unwrap();
        let (title, meta, blocks) = gleaner_clean::clean_html(&html).unwrap();
        let c = gleaner_core::messages::Cleaned {
            id: file.into(),
            url: format!("http://news.test/{file}"),
            final_url: format!("http://news.test/{file}"),
            fetched_at: String::new(),
            title,
            meta,
            blocks,
        };
        Input {
            topic: Topic::CLEANED,
            key: Some("news.test".into()),
            payload: Some(Output::of(Topic::CLEANED, "news.test", &c).payload),
            origin: None,
        }
    };
    let cfg = gleaner_extract::ExtractSettings::default();
    let stage = gleaner_extract::ExtractStage::new(cfg.extractor.parse().unwrap(), &cfg);
    let err = stage.map(&cleaned("index.html")).await.unwrap_err();
    assert!(err.to_string().contains("link text"), "{err}");
    // Passed over by design, not a failure.
    let reason = gleaner_core::outcome::reason_of(&err).unwrap();
    assert_eq!((reason.code, reason.skip), ("not_article", true));
    let outs = stage
        .map(&cleaned("news/bridge-reopens.html"))
        .await
        .unwrap();
    assert_eq!(outs[0].topic, Topic::ARTICLES);
}
