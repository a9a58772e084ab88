//! Safety and bodies: refused addresses, the size cap, decompression bombs,
//! charsets, redirects.

mod common;

use axum::http::{header, StatusCode};
use axum::routing::get;
use axum::Router;
use common::*;
use gleaner_core::stage::Stage;

#[tokio::test]
async fn fetch_refuses_loopback_unless_allowed() {
    let base =
        serve(Router::new().route("/", get(|| async { axum::response::Html("<p>hello</p>") })))
            .await;
    let mut strict = gleaner_fetch::FetchStage::new(&fetch_cfg(), false).unwrap();
    let err = fetch_error(&mut strict, &format!("{base}/")).await;
    assert!(err.to_string().contains("private or reserved"), "{err}");
    // A name that resolves to loopback is refused after resolution.
    let port = base.rsplit(':').next().unwrap();
    let err = fetch_error(&mut strict, &format!("http://localhost:{port}/")).await;
    assert!(format!("{err:#}").contains("private"), "{err:#}");
    // Its dead letter names the reason, found in the resolver's error.
    let mut strict = gleaner_fetch::FetchStage::new(&fetch_cfg(), false).unwrap();
    let err = strict
        .handle(&seed(&format!("http://localhost:{port}/again"), 0))
        .await
        .unwrap_err();
    let reason = err
        .downcast_ref::<gleaner_core::outcome::Reasoned>()
        .map(|r| r.reason.code);
    assert_eq!(reason, Some("private_address"), "{err:#}");
    let mut open = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let outs = open.handle(&seed(&format!("{base}/"), 0)).await.unwrap();
    assert!(page_of(&outs).html.contains("hello"));
}

/// An IP literal in every special-purpose range is refused by the fetch
/// stage before any connection, naming the range; NAT64 and 6to4 forms of
/// a private address too.
#[tokio::test]
async fn fetch_refuses_every_special_purpose_range() {
    let mut strict = gleaner_fetch::FetchStage::new(&fetch_cfg(), false).unwrap();
    for (host, range) in [
        ("0.1.2.3", "this network"),
        ("10.0.0.1", "private use"),
        ("100.64.0.1", "shared address space"),
        ("127.0.0.1", "loopback"),
        ("169.254.169.254", "link local"),
        ("172.31.255.1", "private use"),
        ("192.0.0.1", "IETF protocol assignments"),
        ("192.0.2.1", "documentation"),
        ("192.88.99.1", "6to4 relay"),
        ("192.168.1.1", "private use"),
        ("198.19.255.1", "benchmarking"),
        ("198.51.100.1", "documentation"),
        ("203.0.113.1", "documentation"),
        ("239.1.1.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "limited broadcast"),
        ("[::1]", "reserved"),
        ("[::ffff:7f00:1]", "loopback"),
        ("[64:ff9b::a00:1]", "private use"),
        ("[64:ff9b:1::1]", "translation"),
        ("[100::1]", "discard-only"),
        ("[2001::1]", "IETF protocol assignments"),
        ("[2001:db8::1]", "documentation"),
        ("[2002:c0a8:101::1]", "private use"),
        ("[3fff::1]", "documentation"),
        ("[5f00::1]", "segment routing"),
        ("[fd00::1]", "unique local"),
        ("[fe80::1]", "link-local"),
        ("[fec0::1]", "site-local"),
        ("[ff02::1]", "multicast"),
        ("[4000::1]", "not global unicast"),
    ] {
        let err = fetch_error(&mut strict, &format!("http://{host}/")).await;
        let text = err.to_string();
        assert!(
            text.contains("private or reserved") && text.contains(range),
            "{host}: {text}"
        );
    }
}

#[tokio::test]
async fn fetch_caps_bodies_decodes_charsets_and_follows_redirects() {
    let app = Router::new()
        .route(
            "/big",
            get(|| async { ([(header::CONTENT_TYPE, "text/html")], "x".repeat(3 << 20)) }),
        )
        .route(
            "/latin1",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=windows-1252")],
                    b"<p>caf\xe9 cr\xe8me</p>".to_vec(),
                )
            }),
        )
        .route(
            "/moved",
            get(|| async {
                (
                    StatusCode::MOVED_PERMANENTLY,
                    [(header::LOCATION, "/latin1")],
                )
            }),
        )
        .route(
            "/loop",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "/loop")]) }),
        )
        .route(
            "/pdf",
            get(|| async { ([(header::CONTENT_TYPE, "application/pdf")], "%PDF") }),
        );
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.max_body_bytes = 1 << 20;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let big = page_of(&f.handle(&seed(&format!("{base}/big"), 0)).await.unwrap());
    assert_eq!(big.html.len(), 1 << 20);
    assert_eq!(
        big.headers.get("x-gleaner-truncated").map(String::as_str),
        Some("1048576")
    );
    let moved = page_of(&f.handle(&seed(&format!("{base}/moved"), 0)).await.unwrap());
    assert!(moved.html.contains("café crème"), "{}", moved.html);
    assert!(moved.final_url.ends_with("/latin1"));
    assert_eq!(moved.charset, "windows-1252");
    let err = fetch_error(&mut f, &format!("{base}/loop")).await;
    assert!(format!("{err:#}").contains("redirect"), "{err:#}");
    let err = fetch_error(&mut f, &format!("{base}/pdf")).await;
    assert!(err.to_string().contains("not HTML"), "{err}");
}

/// Real encoded bytes in GB18030, Big5, EUC-KR and windows-1252, declared by
/// header, by meta tag, or not at all, come out as the right text.
#[tokio::test]
async fn fetch_decodes_legacy_charsets() {
    fn enc(label: &str, text: &str) -> Vec<u8> {
        let e = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        e.encode(text).0.into_owned()
    }
    let cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![
        ("/gb18030", "text/html; charset=gb18030", enc("gb18030", "<p>港口大桥维修后重新通车，耗资超过四千万元。</p>"), "港口大桥维修后重新通车"),
        ("/big5", "text/html", [b"<meta charset=\"big5\">".to_vec(), enc("big5", "<p>港口大橋維修後重新通車。</p>")].concat(), "港口大橋維修後重新通車"),
        ("/euckr", "text/html", enc("euc-kr", "<p>항구 다리가 여덟 달 만에 다시 개통되었습니다. 시장은 다리가 앞으로 오십 년 동안 안전하게 사용될 것이라고 말했습니다.</p>"), "항구 다리가"),
        ("/cp1252", "text/html; charset=windows-1252", enc("windows-1252", "<p>Café “crème” – naïve</p>"), "Café “crème” – naïve"),
    ];
    let mut app = Router::new();
    for (path, ct, body, _) in &cases {
        let (ct, body) = (ct.to_string(), body.clone());
        app = app.route(
            path,
            get(move || async move { ([(header::CONTENT_TYPE, ct)], body) }),
        );
    }
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    for (path, _, _, want) in &cases {
        let page = page_of(&f.handle(&seed(&format!("{base}{path}"), 0)).await.unwrap());
        assert!(
            page.html.contains(want),
            "{path} ({}): {}",
            page.charset,
            page.html
        );
    }
}

/// A gzip bomb (a few KiB that inflate to 200 MiB) stops at the body cap.
#[tokio::test]
async fn fetch_stops_decompression_bombs_at_the_cap() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    gz.write_all(b"<html><body><p>").unwrap();
    for _ in 0..200 {
        gz.write_all(&zeros).unwrap();
    }
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 1 << 20);
    let app = Router::new().fallback(move || {
        let bomb = bomb.clone();
        async move {
            (
                [
                    (header::CONTENT_TYPE, "text/html"),
                    (header::CONTENT_ENCODING, "gzip"),
                ],
                bomb,
            )
        }
    });
    let base = serve(app).await;
    let mut cfg = fetch_cfg();
    cfg.max_body_bytes = 4 << 20;
    let mut f = gleaner_fetch::FetchStage::new(&cfg, true).unwrap();
    let page = page_of(&f.handle(&seed(&format!("{base}/bomb"), 0)).await.unwrap());
    assert_eq!(page.html.len(), 4 << 20);
    assert!(page.headers.contains_key("x-gleaner-truncated"));
}
