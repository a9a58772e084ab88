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
    let mut open = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let outs = open.handle(&seed(&format!("{base}/"), 0)).await.unwrap();
    assert!(page_of(&outs).html.contains("hello"));
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
