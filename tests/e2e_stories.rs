//! Stories end to end: `gleaner stories` on the labelled BBC politics
//! stream scored as its README says (B-cubed and pairwise F1), and
//! `gleaner run` over the same articles served as pages on loopback giving
//! each article the story the offline command gives it, and the same again
//! after a restart (the window rebuilt from the data directory).

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

fn dataset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/stories-bbc-politics")
}

/// `gleaner stories --input INPUT --output OUT`; the `{id, story}` lines.
fn offline(cfg: &Path, input: &Path, out: &Path) -> BTreeMap<String, String> {
    let mut o = Command::new(GLEANER);
    o.args(["stories", "--config"])
        .arg(cfg)
        .arg("--input")
        .arg(input)
        .arg("--output")
        .arg(out);
    succeeded(&mut o);
    read_jsonl::<serde_json::Value>(&out.join("stories.jsonl"))
        .into_iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().into(),
                v["story"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// B-cubed F1 and pairwise F1 of `pred` against `truth` (id -> story), as
/// the dataset's score.py computes them.
fn scores(truth: &HashMap<String, String>, pred: &BTreeMap<String, String>) -> (f64, f64) {
    let mut by_t: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    let mut by_p: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for (id, t) in truth {
        let p = pred.get(id).map_or(id.as_str(), String::as_str);
        by_t.entry(t).or_default().insert(id);
        by_p.entry(p).or_default().insert(id);
    }
    let n = truth.len() as f64;
    let (mut p, mut r) = (0.0, 0.0);
    for (id, t) in truth {
        let pg = &by_p[pred.get(id).map_or(id.as_str(), String::as_str)];
        let tg = &by_t[t.as_str()];
        let both = pg.intersection(tg).count() as f64;
        p += both / pg.len() as f64;
        r += both / tg.len() as f64;
    }
    let (p, r) = (p / n, r / n);
    let pairs = |k: usize| (k * k.saturating_sub(1) / 2) as f64;
    let tp: f64 = by_t
        .values()
        .flat_map(|tg| {
            by_p.values()
                .map(move |pg| pairs(tg.intersection(pg).count()))
        })
        .sum();
    let pp: f64 = by_p.values().map(|g| pairs(g.len())).sum();
    let tt: f64 = by_t.values().map(|g| pairs(g.len())).sum();
    (2.0 * p * r / (p + r), 2.0 * tp / (pp + tt))
}

#[test]
fn offline_stories_on_the_labelled_stream() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let pred = offline(
        &cfg,
        &dataset().join("stream.jsonl"),
        &tmp.path().join("out"),
    );
    let labels: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dataset().join("labels.json")).unwrap()).unwrap();
    let truth: HashMap<String, String> = labels["stories"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(s, ids)| {
            ids.as_array()
                .unwrap()
                .iter()
                .map(move |i| (i.as_str().unwrap().to_string(), s.clone()))
        })
        .collect();
    assert_eq!(pred.len(), truth.len());
    let (bcubed, pairwise) = scores(&truth, &pred);
    eprintln!("stories-bbc-politics: B-cubed F1 {bcubed:.4}, pairwise F1 {pairwise:.4}");
    // Every article alone scores B-cubed 0.79, pairwise 0.
    assert!(
        bcubed >= 0.92 && pairwise >= 0.75,
        "B-cubed {bcubed}, pairwise {pairwise}"
    );
    // A story's id is its first report's id.
    let log: Vec<serde_json::Value> = read_jsonl(&tmp.path().join("out/story-log.jsonl"));
    let created: BTreeSet<&str> = log
        .iter()
        .filter(|e| e["kind"] == "created")
        .map(|e| e["story"].as_str().unwrap())
        .collect();
    assert!(pred.values().all(|s| created.contains(s.as_str())));
}

/// The stream's articles as pages: headline, date and paragraphs.
fn page(a: &serde_json::Value) -> String {
    let esc = |s: &str| htmlize::escape_text(s).to_string();
    let paras: String = a["text"]
        .as_str()
        .unwrap()
        .split('\n')
        .filter(|p| !p.trim().is_empty())
        .map(|p| format!("<p>{}</p>", esc(p)))
        .collect();
    format!(
        "<!doctype html><html lang=en><head><title>{t}</title>\
         <meta property='article:published_time' content='{d}'></head>\
         <body><nav><a href='/'>Politics</a></nav><article><h1>{t}</h1>{paras}</article></body></html>",
        t = esc(a["title"].as_str().unwrap()),
        d = a["date"].as_str().unwrap(),
    )
}

/// Each article of `grouped.jsonl` with its story, merges on the story log
/// followed to the story that absorbed it.
fn placed(data: &Path) -> BTreeMap<String, String> {
    let log: Vec<serde_json::Value> = read_jsonl(&data.join("story-log.jsonl"));
    let into: HashMap<String, String> = log
        .iter()
        .filter(|e| e["kind"] == "merged")
        .map(|e| {
            (
                e["story"].as_str().unwrap().into(),
                e["into"].as_str().unwrap().into(),
            )
        })
        .collect();
    let resolve = |mut s: String| {
        while let Some(next) = into.get(&s) {
            s = next.clone();
        }
        s
    };
    read_jsonl::<serde_json::Value>(&data.join("grouped.jsonl"))
        .into_iter()
        .map(|a| {
            let story = a["story"].as_str().unwrap().to_string();
            (a["id"].as_str().unwrap().to_string(), resolve(story))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gleaner_run_places_articles_as_the_offline_command_does() {
    let stream: Vec<serde_json::Value> = read_jsonl(&dataset().join("stream.jsonl"));
    let pages: std::sync::Arc<Vec<String>> = std::sync::Arc::new(stream.iter().map(page).collect());
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let pages = pages.clone();
        async move {
            let path = uri.path();
            if path == "/" {
                let links: String = (0..pages.len())
                    .map(|i| format!("<a href='/politics/{i}.html'>{i}</a> "))
                    .collect();
                return axum::response::Html(format!("<html><body>{links}</body></html>"));
            }
            let i: usize = path
                .strip_prefix("/politics/")
                .and_then(|p| p.strip_suffix(".html"))
                .and_then(|n| n.parse().ok())
                .unwrap_or(usize::MAX);
            axum::response::Html(pages.get(i).cloned().unwrap_or_default())
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    let out = run_on_site(&cfg, &data, &base).await;
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = placed(&data);
    assert!(run.len() > 350, "{} articles grouped", run.len());
    let alone = offline(
        &cfg,
        &data.join("grouped.jsonl"),
        &tmp.path().join("offline"),
    );
    assert_eq!(run, alone, "gleaner run and gleaner stories disagree");
    let multi = {
        let mut sizes: HashMap<&str, usize> = HashMap::new();
        for s in run.values() {
            *sizes.entry(s).or_default() += 1;
        }
        sizes.values().filter(|&&n| n > 1).count()
    };
    eprintln!(
        "{} articles grouped, {multi} stories of two or more reports",
        run.len()
    );
    assert!(multi >= 30, "{multi} stories of two or more reports");
    // A second run refetches every page: the window rebuilt from the data
    // directory gives each article the story it had.
    let again = run_on_site_with(&cfg, &data, &base, &["--refetch"]).await;
    assert!(matches!(again.status.code(), Some(0 | 3)));
    let after = placed(&data);
    for (id, story) in &run {
        assert_eq!(
            after.get(id),
            Some(story),
            "{id} changed story after a restart"
        );
    }
}

/// On Kafka the stories service rebuilds its window from the tail of its
/// own output: a follow-up produced after a restart joins the story its
/// first report started before it, and a replayed article keeps its story.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_story_window_survives_restart() {
    let Some(brokers) = test_brokers("kafka_story_window_survives_restart") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (prefix, cfg_path, cfg) = kafka_test_config(tmp.path(), "stories", &brokers).await;
    let stream: Vec<gleaner_core::messages::Article> = read_jsonl(&dataset().join("stream.jsonl"));
    // The hunting ban story's first reports, and some others around them.
    let labels: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dataset().join("labels.json")).unwrap()).unwrap();
    let hunt: BTreeSet<&str> = labels["stories"]["hunting-ban"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let first = stream
        .iter()
        .position(|a| hunt.contains(a.id.as_str()))
        .unwrap();
    let before: Vec<_> = stream[first.saturating_sub(20)..=first].to_vec();
    let follow_up = stream[first + 1..]
        .iter()
        .find(|a| hunt.contains(a.id.as_str()))
        .unwrap()
        .clone();
    let producer = gleaner_kafka::producer(&cfg, &brokers).unwrap();
    let produce = |articles: Vec<gleaner_core::messages::Article>| {
        let outs: Vec<_> = articles
            .iter()
            .map(|a| gleaner_core::stage::Output::of(gleaner_core::Topic::UNIQUE, &a.id, a))
            .collect();
        let (producer, cfg) = (&producer, &cfg);
        async move {
            gleaner_kafka::produce_all(producer, cfg, &outs)
                .await
                .unwrap()
        }
    };
    let topic = format!("{prefix}.grouped");
    // Reading the topic blocks: off the runtime's workers.
    let service = || {
        gleaner_on(&cfg_path, None, &["stories", "--brokers", &brokers])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let stop = |mut c: std::process::Child| {
        Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status()
            .unwrap();
        assert!(c.wait().unwrap().success());
    };
    let n = before.len();
    let first_id = before[n - 1].id.clone();
    let stories = service();
    produce(before.clone()).await;
    tokio::task::block_in_place(|| wait_grouped(&brokers, &topic, n));
    stop(stories);
    let stories = service();
    produce(vec![follow_up.clone(), before[n - 1].clone()]).await;
    let all = tokio::task::block_in_place(|| wait_grouped(&brokers, &topic, n + 2));
    stop(stories);
    let story_of = |id: &str| {
        all.iter()
            .rev()
            .find(|a| a.id == id)
            .and_then(|a| a.story.clone())
    };
    let started = all
        .iter()
        .find(|a| a.id == first_id)
        .and_then(|a| a.story.clone());
    assert_eq!(
        story_of(&follow_up.id),
        started,
        "the follow-up joins across the restart"
    );
    assert_eq!(story_of(&first_id), started, "a replay keeps its story");
}

/// The articles on `topic` once it holds at least `n` (a minute at most).
fn wait_grouped(brokers: &str, topic: &str, n: usize) -> Vec<gleaner_core::messages::Article> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let got: Vec<gleaner_core::messages::Article> = read_topic(brokers, topic)
            .iter()
            .map(|p| serde_json::from_slice(p).unwrap())
            .collect();
        if got.len() >= n {
            return got;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{topic} has {} of {n}",
            got.len()
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}
