//! Extraction as a user runs it: `gleaner eval` on labelled CJK pages of our
//! own making, and `gleaner extract` on pathological inputs, which must end
//! in bounded time without a panic.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GLEANER: &str = env!("CARGO_BIN_EXE_gleaner");

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

fn eval(dir: &Path, extractor: &str) -> serde_json::Value {
    let out = Command::new(GLEANER)
        .args(["eval", "--json", "--extractor", extractor])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap()
}

#[test]
fn cjk_pages_are_extracted() {
    let dir = repo("tests/data/cjk");
    for extractor in [
        "auto",
        "density",
        "qread",
        "lines",
        "link-ratio",
        "template",
    ] {
        let r = eval(&dir, extractor);
        let f1 = r["overall"]["f1"].as_f64().unwrap();
        eprintln!(
            "cjk {extractor}: F1={f1:.3} P={:.3} R={:.3} without_kept={:.3}",
            r["overall"]["precision"].as_f64().unwrap(),
            r["overall"]["recall"].as_f64().unwrap(),
            r["without_kept"].as_f64().unwrap()
        );
        if matches!(extractor, "auto" | "density") {
            assert!(f1 >= 0.9, "{extractor} F1 {f1} on CJK pages");
            assert_eq!(
                r["without_kept"].as_f64().unwrap(),
                0.0,
                "{extractor} kept navigation or footer"
            );
        }
    }
}

#[test]
fn pages_labelled_empty_are_counted_apart() {
    // The metric scores a page whose reference is empty 1 when nothing is
    // extracted and 0 otherwise; eval says how many such pages a set has.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("html")).unwrap();
    std::fs::create_dir_all(tmp.path().join("ground-truth")).unwrap();
    let story =
        "<p>The harbour bridge reopened on Monday after eight months of repairs, the city said, \
                 and traffic was flowing normally by the evening rush hour across the river.</p>";
    let pages = [
        (
            "shell",
            "<html><body><div id=\"root\"></div><script>render()</script></body></html>"
                .to_string(),
            "",
        ),
        (
            "served",
            format!("<html><body><article>{story}{story}</article></body></html>"),
            "",
        ),
        (
            "labelled",
            format!("<html><body><article>{story}</article></body></html>"),
            "The harbour bridge reopened on Monday",
        ),
    ];
    for (id, html, reference) in &pages {
        std::fs::write(tmp.path().join(format!("html/{id}.html")), html).unwrap();
        let truth = serde_json::json!({"url": format!("https://example.com/{id}"),
            "_internal": {"page_type": {"primary": "article"}},
            "ground_truth": {"title": "", "main_content": reference, "with": [], "without": []}});
        std::fs::write(
            tmp.path().join(format!("ground-truth/{id}.json")),
            truth.to_string(),
        )
        .unwrap();
    }
    let r = eval(tmp.path(), "auto");
    assert_eq!(r["empty_references"], 2, "{r}");
    assert_eq!(r["empty_references_kept_empty"], 1, "{r}");
}

fn extract_file(name: &str, bytes: &[u8]) -> (std::process::Output, Duration) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let t0 = Instant::now();
    let out = Command::new(GLEANER)
        .args(["extract", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    (out, t0.elapsed())
}

#[test]
fn pathological_pages_end_without_panics() {
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "nested.html",
            ("<div>".repeat(100_000) + "deep text").into_bytes(),
        ),
        ("text-node.html", {
            let mut v = b"<html><body><p>".to_vec();
            v.extend(std::iter::repeat_n(b"word ".as_slice(), 10 << 20).flatten());
            v
        }),
        (
            "comment.html",
            b"<p>before</p><!-- never closed <p>after</p>".to_vec(),
        ),
        (
            "garbage.html",
            (0..2_000_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
        ),
        (
            "utf16.html",
            "<p>caf\u{e9} na\u{ef}ve</p>"
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect(),
        ),
        (
            "sjis-no-charset.html",
            b"<p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x90\xa2\x8a\x45</p>".to_vec(),
        ),
        (
            "tags-only.html",
            "<a><b><i><span>".repeat(200_000).into_bytes(),
        ),
        (
            "attrs.html",
            format!("<div {}>x</div>", "a=\"b\" ".repeat(500_000)).into_bytes(),
        ),
    ];
    cases.push(("empty.html", Vec::new()));
    for (name, bytes) in cases {
        let (out, took) = extract_file(name, &bytes);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(out.status.code().is_some(), "{name} was killed by a signal");
        assert!(took < Duration::from_secs(60), "{name} took {took:?}");
        let line = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value =
            serde_json::from_str(line.lines().next().unwrap_or("{}")).unwrap();
        assert!(
            v.get("text").is_some() || v.get("error").is_some(),
            "{name}: {line}"
        );
        eprintln!(
            "{name}: {} bytes in {:.2}s, exit {:?}",
            bytes.len(),
            took.as_secs_f64(),
            out.status.code()
        );
    }
}

#[test]
fn sjis_without_charset_is_detected() {
    let (out, _) = extract_file("sjis.html", b"<html><body><p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x81\x41\x90\xa2\x8a\x45\x81\x42\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42</p></body></html>");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["text"].as_str().unwrap().contains("こんにちは、世界。"),
        "{v}"
    );
}

/// `text` as a page encoded in `label`, with `<meta charset=declared>`.
fn legacy_page(label: &str, declared: Option<&str>, text: &str) -> Vec<u8> {
    let enc = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
    let meta = declared.map_or(String::new(), |d| format!("<meta charset=\"{d}\">"));
    let body = format!("<p>{text}</p>").repeat(4);
    let html = format!(
        "<html><head>{meta}<title>t</title></head><body><article>{body}</article></body></html>"
    );
    enc.encode(&html).0.into_owned()
}

/// Serves `body` with `content_type` to every request on a loopback port.
fn serve_bytes(content_type: &'static str, body: Vec<u8>) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(&body);
        }
    });
    format!("http://{addr}/page.html")
}

/// Undeclared and mis-declared legacy charsets come out as their text,
/// from files and over HTTP with a lying Content-Type.
#[test]
fn misdeclared_and_undeclared_charsets_are_read_right() {
    let zh = "北京市政府今天宣布，新的地铁线路将于明年年底开通，全长约四十公里，沿途设有二十六个车站。市民普遍表示欢迎，认为这将大大缓解城市交通压力。";
    let tw = "台北市政府今天宣布，新的捷運路線將於明年年底通車，全長約四十公里，沿途設有二十六個車站。市民普遍表示歡迎，認為這將大大緩解城市交通壓力。";
    let ru = "Правительство Москвы сегодня объявило, что новая линия метро откроется в конце следующего года. Её длина составит около сорока километров, на ней будет двадцать шесть станций. Жители в целом приветствуют это решение.";
    let ko = "서울시는 오늘 새로운 지하철 노선을 내년 말에 개통한다고 발표했다. 전체 길이는 약 사십 킬로미터이며 스물여섯 개의 역이 설치된다. 시민들은 대체로 환영하며 교통 혼잡이 크게 줄어들 것으로 기대하고 있다.";
    let files = [
        ("big5-undeclared.html", legacy_page("big5", None, tw), tw),
        (
            "utf8-as-gb2312.html",
            legacy_page("utf-8", Some("gb2312"), zh),
            zh,
        ),
        (
            "gbk-as-utf8.html",
            legacy_page("gbk", Some("utf-8"), zh),
            zh,
        ),
        (
            "cp1251-as-latin1.html",
            legacy_page("windows-1251", Some("iso-8859-1"), ru),
            ru,
        ),
    ];
    for (name, bytes, text) in &files {
        let (out, _) = extract_file(name, bytes);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let got = v["text"].as_str().unwrap_or_default();
        assert!(got.contains(text), "{name}: {got}");
    }
    // Over HTTP the header lies (latin1 over EUC-KR; UTF-8 over GBK).
    for (ct, bytes, text) in [
        (
            "text/html; charset=iso-8859-1",
            legacy_page("euc-kr", None, ko),
            ko,
        ),
        ("text/html; charset=utf-8", legacy_page("gbk", None, zh), zh),
    ] {
        let url = serve_bytes(ct, bytes);
        let out = Command::new(GLEANER)
            .args(["extract", "--json", &url])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{ct}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let got = v["text"].as_str().unwrap_or_default();
        assert!(got.contains(text), "{ct}: {got}");
    }
}

/// A page whose article is only in its JSON-LD `articleBody` (the page
/// itself rendered by script) gives that article.
#[test]
fn a_script_rendered_page_gives_its_json_ld_article_body() {
    let paragraphs = [
        "Der Stadtrat hat am Dienstag beschlossen, die alte Brücke über den Fluss bis zum Sommer vollständig zu sanieren und danach wieder für den Verkehr zu öffnen.",
        "Die Kosten von rund vierzig Millionen Euro teilen sich die Stadt und das Land, wie die Bürgermeisterin nach der Sitzung erklärte.",
        "Während der Bauzeit fahren die Busse über die Umleitung im Norden, die Fähre verkehrt zusätzlich jede halbe Stunde.",
        "Anwohner begrüßten die Entscheidung, Händler in der Altstadt fürchten dagegen um ihre Kundschaft während der Sperrung.",
    ];
    let body = paragraphs.join("\n\n");
    let ld = serde_json::json!({
        "@context": "https://schema.org",
        "@graph": [{"@type": "WebSite", "name": "Stadtblatt"},
                   {"@type": "NewsArticle", "headline": "Brücke wird saniert",
                    "articleBody": body}]
    });
    let page = format!(
        r#"<html lang="de"><head><title>Brücke wird saniert</title><script type="application/ld+json">{ld}</script></head><body><div id="app"></div><script src="/app.js"></script></body></html>"#
    );
    let (out, _) = extract_file("ld-only.html", page.as_bytes());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let text = v["text"].as_str().unwrap_or_default();
    for p in paragraphs {
        assert!(text.contains(p), "{p:?} missing: {v}");
    }
}

/// `gleaner extract --json` gives what the articles topic carries of a
/// page: its authors as a list, the publication, the canonical URL and
/// the lead image, beside title, date and text.
#[test]
fn extract_json_carries_the_articles_metadata() {
    let page = r#"<html><head><title>Bridge reopens | Harbour Times</title>
        <link rel="canonical" href="https://news.test/bridge">
        <meta property="og:image" content="https://news.test/lead.jpg">
        <meta property="og:site_name" content="Harbour Times">
        <script type="application/ld+json">{"@type":"NewsArticle","headline":"Bridge reopens","datePublished":"2026-03-02T08:00:00+01:00","author":[{"name":"Mara Olsen"},{"name":"Ken Ito"}]}</script>
        </head><body><article><h1>Bridge reopens</h1>
        <p>The harbour bridge reopened on Monday after eight months of repairs, the council said in a statement.</p>
        <p>Engineers replaced the worn cables and resurfaced the deck, and buses crossed it before dawn.</p>
        </article></body></html>"#;
    let (out, _) = extract_file("meta.html", page.as_bytes());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        v["authors"],
        serde_json::json!(["Mara Olsen", "Ken Ito"]),
        "{v}"
    );
    assert_eq!(v["site_name"], "Harbour Times", "{v}");
    assert_eq!(v["canonical_url"], "https://news.test/bridge", "{v}");
    assert_eq!(v["image"], "https://news.test/lead.jpg", "{v}");
    assert_eq!(v["date"], "2026-03-02T08:00:00+01:00", "{v}");
    assert_eq!(v["title"], "Bridge reopens", "{v}");
}

/// A poem's lines and a hard-wrapped paragraph, parted by single
/// `<br>`s, keep their lines within one paragraph of the text; `<br><br>`
/// and paragraphs still part paragraphs.
#[test]
fn single_line_breaks_stay_in_their_paragraph() {
    let page = "<html><head><title>The ferry</title></head><body><article><h1>The ferry</h1>\
        <p>The harbour ferry crossed for the last time on Sunday, after ninety years of service to the islands, the operator said.</p>\
        <p>The gulls came down to meet her,<br>the tide ran out to sea,<br/>and every bell in harbour town<br>\n   rang once for her and me.</p>\
        <p>Passengers gathered on the quay before dawn to watch her leave, and many had brought flowers for the crew.<br><br>\
        The council has not said what will replace the service, but a bridge is planned for the next decade.</p>\
        </article></body></html>";
    let (out, _) = extract_file("poem.html", page.as_bytes());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let text = v["text"].as_str().unwrap();
    assert!(
        text.contains("meet her,\nthe tide ran out to sea,\nand every bell in harbour town\nrang once for her and me."),
        "{text:?}"
    );
    assert!(
        text.contains("islands, the operator said.\n\nThe gulls"),
        "{text:?}"
    );
    assert!(text.contains("for the crew.\n\nThe council"), "{text:?}");
}
