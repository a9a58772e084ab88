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
