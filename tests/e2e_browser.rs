//! The search page of `gleaner serve` in a real browser: Debian's chromium,
//! headless, loads `/?q=...` over an index made by `gleaner run` from the
//! example site, and the DOM it builds has the hits; a query that tries to
//! inject markup stays text. The JSON API it sits beside is checked too.
//! A second test drives the page as a person does (over the DevTools
//! protocol): typing, a facet, paging, an article, the keyboard.

#[path = "browser/cdp.rs"]
mod cdp;
mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The browser scripts/test.sh installed, or `None` (with a note) outside
/// it; under CI a missing browser is a failure, not a skip.
fn chromium() -> Option<String> {
    let path = std::env::var("GLEANER_TEST_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let found = Command::new(&path)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI runs the browser test with chromium: use scripts/test.sh"
    );
    eprintln!("SKIPPED: no chromium (scripts/test.sh installs it)");
    None
}

/// A screenshot of `url` at `size` (width,height) into `path`, kept with
/// the test output (target/browser-screenshots) for a person to look at.
fn screenshot(chromium: &str, url: &str, size: &str, path: &std::path::Path) {
    let profile = tempfile::tempdir().unwrap();
    let status = Command::new(chromium)
        .args(cdp::HEADLESS)
        .arg("--hide-scrollbars")
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={size}"))
        .arg(format!("--screenshot={}", path.display()))
        .arg(url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success() && path.exists(), "no screenshot of {url}");
}

/// The DOM chromium builds for `url`.
fn dump_dom(chromium: &str, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium)
        .args(cdp::HEADLESS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not load {url} in 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut dom = String::new();
    use std::io::Read;
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut dom)
        .unwrap();
    dom
}

/// The example site crawled by `gleaner run` and served by `gleaner serve`.
struct Served {
    /// The site's base URL.
    base: String,
    serve: std::process::Child,
    /// Where `gleaner serve` listens.
    listen: String,
    _site: Log,
    _data: tempfile::TempDir,
}

async fn served_example() -> Served {
    let (base, site) = start_site().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = test_config(tmp.path(), None);
    let data = tmp.path().join("data");
    run_summary(&run_on_site(&cfg, &data, &base).await, &data);
    let (serve, listen) = serve_data(&cfg, &data).await;
    Served {
        base,
        serve,
        listen,
        _site: site,
        _data: tmp,
    }
}

/// Where screenshots are kept for a person to look at.
fn screenshots_dir() -> std::path::PathBuf {
    let shots =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    shots
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_page_shows_hits_in_a_browser() {
    let Some(chromium) = chromium() else {
        return;
    };
    // Kept whole: the site and the data directory live as long as it.
    let mut served = served_example().await;
    let (base, listen) = (served.base.clone(), served.listen.clone());

    let (c, l) = (chromium.clone(), listen.clone());
    let dom = tokio::task::spawn_blocking(move || dump_dom(&c, &format!("http://{l}/?q=bridge")))
        .await
        .unwrap();
    let (c, l) = (chromium.clone(), listen.clone());
    let hostile = tokio::task::spawn_blocking(move || {
        dump_dom(
            &c,
            &format!("http://{l}/?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E"),
        )
    })
    .await
    .unwrap();
    let (c, l) = (chromium.clone(), listen.clone());
    let empty = tokio::task::spawn_blocking(move || dump_dom(&c, &format!("http://{l}/")))
        .await
        .unwrap();
    // The JSON API beside it: the same hits; a missing query is a 400, an
    // unbalanced one is read leniently.
    let api = |q: &str| {
        let url = format!("http://{listen}/search{q}");
        async move { http_get(&url).await }
    };
    let (status, body) = api("?q=bridge&limit=5").await.unwrap();
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    let urls: Vec<&str> = json["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["url"].as_str())
        .collect();
    assert_eq!(status, 200);
    assert!(
        urls.contains(&format!("{base}/news/bridge-reopens.html").as_str()),
        "{body}"
    );
    // The article view of the first hit, and the results narrowed by a
    // site facet, as chromium builds them.
    let (_, v1) = http_get(&format!("http://{listen}/api/v1/search?q=bridge&limit=1"))
        .await
        .unwrap();
    let v1: serde_json::Value = serde_json::from_str(&v1).unwrap();
    let id = v1["hits"][0]["id"].as_str().unwrap().to_string();
    let site = v1["facets"]["site"][0][0].as_str().unwrap().to_string();
    let (c, l) = (chromium.clone(), listen.clone());
    let article =
        tokio::task::spawn_blocking(move || dump_dom(&c, &format!("http://{l}/article/{id}")))
            .await
            .unwrap();
    let (c, l, s) = (chromium.clone(), listen.clone(), site.clone());
    let narrowed = tokio::task::spawn_blocking(move || {
        dump_dom(&c, &format!("http://{l}/?q=bridge&site={s}&sort=newest"))
    })
    .await
    .unwrap();
    // The stories view, single reports too, and the first story's page.
    let (c, l) = (chromium.clone(), listen.clone());
    let stories = tokio::task::spawn_blocking(move || {
        dump_dom(&c, &format!("http://{l}/stories?min_reports=1"))
    })
    .await
    .unwrap();
    let first_story = stories
        .split("href=\"/story/")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_default()
        .to_string();
    let (c, l, s) = (chromium.clone(), listen.clone(), first_story.clone());
    let story = tokio::task::spawn_blocking(move || dump_dom(&c, &format!("http://{l}/story/{s}")))
        .await
        .unwrap();
    let shots = screenshots_dir();
    for (name, size, path) in [
        ("results-desktop", "1200,900", "/?q=bridge"),
        ("results-phone", "390,844", "/?q=bridge"),
        ("stories-desktop", "1200,900", "/stories?min_reports=1"),
    ] {
        let (c, url, file) = (
            chromium.clone(),
            format!("http://{listen}{path}"),
            shots.join(format!("{name}.png")),
        );
        tokio::task::spawn_blocking(move || screenshot(&c, &url, size, &file))
            .await
            .unwrap();
    }
    assert_eq!(api("").await.unwrap().0, 400);
    assert_eq!(api("?q=%22harbour+AND+(").await.unwrap().0, 200);
    let _ = served.serve.kill();
    let _ = served.serve.wait();

    assert!(
        dom.contains("value=\"bridge\""),
        "the query in its box: {dom}"
    );
    let hits = dom.matches("<article class=\"hit\">").count();
    assert!(hits >= 1, "hits for bridge: {dom}");
    assert!(
        dom.contains(&format!("href=\"{base}/news/bridge-reopens.html\"")),
        "the bridge article, linked: {dom}"
    );
    // The bridge article's summary is its lead sentence, which its
    // snippet holds: said once, not twice.
    let lead = "reopened to traffic on Monday morning after eight months";
    assert_eq!(dom.matches(lead).count(), 1, "its lead said once: {dom}");
    assert!(
        dom.to_lowercase().contains("<mark>bridge</mark>"),
        "the matched word marked in its snippet: {dom}"
    );
    assert!(
        hostile.matches("<script").count() == 1
            && hostile.contains("<script src=\"/search.js\" defer=\"\"></script>"),
        "a query stays text, the page's own script the only one: {hostile}"
    );
    assert!(
        hostile.contains("alert(1)"),
        "and is shown as written: {hostile}"
    );
    assert!(
        empty.contains("articles searchable") && empty.contains("href=\"/report\""),
        "{empty}"
    );
    // Facets, order and the way to the article view are on the page.
    assert!(dom.contains("aria-label=\"Narrow the results\""), "{dom}");
    assert!(
        dom.contains(">newest</a>") && dom.contains("/article/"),
        "{dom}"
    );
    assert!(
        article.contains("<h1>") && article.contains("Summaries") && article.contains("← Search"),
        "{article}"
    );
    assert!(
        stories.contains("<h1>Stories</h1>") && !first_story.is_empty(),
        "a story listed and linked: {stories}"
    );
    assert!(
        story.contains("<ol><li><a href=\"/article/")
            && (story.contains(" report on ") || story.contains(" reports on ")),
        "the story's reports, linked to their articles: {story}"
    );
    assert!(
        dom.contains("one hit per: <b aria-current=\"true\">story</b>"),
        "grouped by story by default: {dom}"
    );
    assert!(
        narrowed.contains("<b aria-current=\"true\">newest</b>")
            && narrowed.matches("<article class=\"hit\">").count() >= 1,
        "{narrowed}"
    );
}

/// The page driven as a person would: results appear as a query is typed
/// (no submit, no reload), a facet narrows them, the next page and an
/// article open, and "/" brings the caret back to the box.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_page_answers_as_you_type() {
    let Some(chromium) = chromium() else {
        return;
    };
    // Kept whole: the site and the data directory live as long as it.
    let mut served = served_example().await;
    let listen = served.listen.clone();
    let shots = screenshots_dir();
    let driven = tokio::task::spawn_blocking(move || drive(&chromium, &listen, &shots)).await;
    let _ = served.serve.kill();
    let _ = served.serve.wait();
    driven.unwrap();
}

fn drive(chromium: &str, listen: &str, shots: &std::path::Path) {
    let mut b = cdp::Browser::start(chromium, 1200, 900);
    b.open(&format!("http://{listen}/"));
    // A mark that a page load would wipe: typing must not reload.
    b.eval("window.stayed = true; document.querySelector('input[name=q]').focus(); true");
    // Half typed, the word is read as the start of words.
    b.type_text("brid");
    b.wait_for(
        "document.querySelectorAll('#results article.hit').length > 0 \
         && new URLSearchParams(location.search).get('q') === 'brid'",
    );
    assert_eq!(
        b.eval("document.querySelector('#results [role=status]').textContent.includes('start of words')"),
        serde_json::json!(true),
        "a half-typed word found as the start of words"
    );
    b.type_text("ge");
    b.wait_for(
        "document.querySelectorAll('#results article.hit').length > 0 \
         && new URLSearchParams(location.search).get('q') === 'bridge'",
    );
    assert_eq!(
        b.eval("window.stayed === true"),
        serde_json::json!(true),
        "no reload"
    );
    assert_eq!(
        b.eval("document.getElementById('results').innerHTML.toLowerCase().includes('<mark>bridge</mark>')"),
        serde_json::json!(true),
        "the typed word marked in the results"
    );
    let shown = b.eval("Number(document.getElementById('results').dataset.shownMs)");
    assert!(shown.as_f64().is_some_and(|ms| ms > 0.0), "{shown}");
    eprintln!("results shown {shown} ms after the last keystroke");
    b.screenshot(&shots.join("typed-desktop.png"));

    // A date range picked in the form narrows as well (to nothing here),
    // and cleared gives the hits back.
    let pick = |b: &mut cdp::Browser, day: &str| {
        b.eval(&format!(
            "(() => {{ const f = document.querySelector('input[name=from]'); f.value = '{day}'; \
             f.dispatchEvent(new Event('change')); return true; }})()"
        ));
    };
    pick(&mut b, "2030-01-01");
    b.wait_for(
        "new URLSearchParams(location.search).get('from') === '2030-01-01' \
         && document.querySelectorAll('#results article.hit').length === 0",
    );
    pick(&mut b, "");
    b.wait_for(
        "!location.search.includes('from=') && document.querySelectorAll('#results article.hit').length > 0",
    );

    // A facet is a link: it narrows the results.
    let facet = b.eval(
        "(() => { const a = document.querySelector('.facets a'); a.click(); return a.getAttribute('href'); })()",
    );
    let facet = facet.as_str().unwrap().to_string();
    b.wait_for(&format!(
        "location.pathname + location.search === {} && document.readyState === 'complete'",
        serde_json::json!(facet)
    ));
    assert!(
        b.eval("document.querySelectorAll('#results article.hit').length")
            .as_u64()
            .unwrap()
            >= 1,
        "hits under the facet {facet}"
    );

    // Paging: one article a page, then the next.
    b.open(&format!(
        "http://{listen}/?sort=newest&group=article&limit=1"
    ));
    b.eval("document.querySelector('a[rel=next]').click(); true");
    b.wait_for(
        "new URLSearchParams(location.search).get('offset') === '1' && document.readyState === 'complete'",
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#results article.hit').length"),
        serde_json::json!(1)
    );

    // An article opens whole, with its summaries.
    b.eval("document.querySelector('a[href^=\"/article/\"]').click(); true");
    b.wait_for(
        "location.pathname.startsWith('/article/') && document.readyState === 'complete' \
         && document.body.innerText.includes('Summaries')",
    );
    // Its paragraphs keep their line breaks and indentation (code, lists).
    assert_eq!(
        b.eval("getComputedStyle(document.querySelector('section.text p')).whiteSpace"),
        serde_json::json!("pre-wrap")
    );

    // "/" brings the caret back to the search box.
    b.open(&format!("http://{listen}/?q=bridge"));
    b.eval("document.activeElement.blur(); true");
    b.press("/");
    assert_eq!(
        b.eval("document.activeElement === document.querySelector('input[name=q]')"),
        serde_json::json!(true)
    );

    // At phone width, typed as well.
    let mut phone = cdp::Browser::start(chromium, 390, 844);
    phone.open(&format!("http://{listen}/"));
    phone.eval("document.querySelector('input[name=q]').focus(); true");
    phone.type_text("bridge");
    phone.wait_for("document.querySelectorAll('#results article.hit').length > 0");
    phone.screenshot(&shots.join("typed-phone.png"));
}

/// Not a test: scripts/bench-search.sh's measure of the page's answer to
/// typing, against the `gleaner serve` at GLEANER_BENCH_URL over its bench
/// index. Types each of 40 words from GLEANER_BENCH_VOCAB (every fifth of
/// the commonest 200) a key at a time and reads how long after the last
/// key its results were on the page (search.js records it).
#[test]
#[ignore]
fn typing_latency() {
    let (Ok(url), Ok(vocab)) = (
        std::env::var("GLEANER_BENCH_URL"),
        std::env::var("GLEANER_BENCH_VOCAB"),
    ) else {
        panic!("set GLEANER_BENCH_URL and GLEANER_BENCH_VOCAB (scripts/bench-search.sh does)");
    };
    let chromium = chromium().expect("chromium");
    let words: Vec<String> = std::fs::read_to_string(vocab)
        .unwrap()
        .lines()
        .take(200)
        .step_by(5)
        .map(str::to_string)
        .collect();
    let mut b = cdp::Browser::start(&chromium, 1200, 900);
    let mut shown = Vec::new();
    for w in &words {
        b.open(&format!("{url}/"));
        b.eval("document.querySelector('input[name=q]').focus(); true");
        b.type_text(w);
        b.wait_for(&format!(
            "new URLSearchParams(location.search).get('q') === {} \
             && document.querySelectorAll('#results article.hit').length > 0",
            serde_json::json!(w)
        ));
        let ms = b.eval("Number(document.getElementById('results').dataset.shownMs)");
        shown.push(ms.as_f64().unwrap());
    }
    shown.sort_by(f64::total_cmp);
    let at = |q: f64| shown[((shown.len() - 1) as f64 * q).round() as usize];
    println!(
        "typing: first results on the page after the last key: p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms ({} words)",
        at(0.5),
        at(0.95),
        at(1.0),
        shown.len()
    );
}
