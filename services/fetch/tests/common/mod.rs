//! Helpers shared by the fetch stage's tests: loopback servers, inputs,
//! configurations.
#![allow(dead_code, unused_imports)]

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use gleaner_core::messages::{Article, FrontierLink, Page, Scope, Seed, Summarized};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// A site with an empty robots.txt whose pages take `ms` to answer `body`.
pub async fn slow_site(ms: u64, body: &'static str) -> String {
    serve(
        Router::new()
            .route("/robots.txt", get(|| async { "" }))
            .fallback(move || async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                axum::response::Html(body)
            }),
    )
    .await
}

pub fn seed(url: &str, depth: u32) -> Input {
    seed_input(&Seed {
        url: url.into(),
        depth: Some(depth),
        ..Seed::default()
    })
}

/// The error (with its causes) of fetching a URL that must fail.
pub async fn fetch_error(f: &mut gleaner_fetch::FetchStage, url: &str) -> String {
    format!("{:#}", f.handle(&seed(url, 0)).await.unwrap_err())
}

pub fn seed_input(s: &Seed) -> Input {
    Input {
        topic: Topic::SEEDS,
        key: Some("h".into()),
        payload: Some(Output::of(Topic::SEEDS, "h", s).payload),
        origin: None,
    }
}

/// A frontier link on 127.0.0.1 with depth limit 1, as fetch would emit it.
pub fn frontier_link(url: &str, depth: u32) -> Input {
    let l = FrontierLink {
        url: url.into(),
        depth,
        max_depth: 1,
        scope: Scope::SameHost,
        seed_host: "127.0.0.1".into(),
        parent: String::new(),
        priority: 0,
        allow: vec![],
        deny: vec![],
        deferred: false,
    };
    Input {
        topic: Topic::FRONTIER,
        key: None,
        payload: Some(Output::of(Topic::FRONTIER, "h", &l).payload),
        origin: None,
    }
}

pub fn fetch_cfg() -> gleaner_fetch::FetchSettings {
    gleaner_fetch::FetchSettings {
        per_host_delay_ms: 0,
        bloom_capacity: 1000,
        // No batch deadline unless a test is about it: a slow retry on a
        // loaded machine would otherwise finish in the background, after
        // handle().
        defer_after_ms: 0,
        ..Default::default()
    }
}

pub fn page_of(outs: &[Output]) -> Page {
    let o = outs
        .iter()
        .find(|o| o.topic == Topic::PAGES)
        .expect("a page");
    o.decode().unwrap()
}

/// A fetch stage keeping its state (seen set, schedule) in `dir`.
pub fn stateful_fetch(dir: &std::path::Path) -> gleaner_fetch::FetchStage {
    gleaner_fetch::FetchStage::new(&fetch_cfg(), true)
        .unwrap()
        .with_state(dir)
        .unwrap()
}

pub fn pages_in(outs: &[Output]) -> usize {
    outs.iter().filter(|o| o.topic == Topic::PAGES).count()
}

/// A stateful fetch stage that has fetched `base`/ once, scheduled to be
/// recrawled every second.
pub async fn scheduled_fetch(dir: &std::path::Path, base: &str) -> gleaner_fetch::FetchStage {
    let mut f = stateful_fetch(dir);
    let s = Seed {
        url: format!("{base}/"),
        depth: Some(0),
        every_secs: Some(1),
        ..Seed::default()
    };
    assert_eq!(pages_in(&f.handle(&seed_input(&s)).await.unwrap()), 1);
    f
}

/// Waits for a recrawl every second to fall due, and fetches it.
pub async fn due_again(f: &mut gleaner_fetch::FetchStage) -> gleaner_core::stage::Handled {
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let due = f.tick().await;
    assert_eq!(due.len(), 1, "the recrawl is due");
    let input = Input {
        topic: Topic::SEEDS,
        key: None,
        payload: Some(due[0].payload.clone()),
        origin: None,
    };
    f.handle(&input).await
}

/// A minimal forward proxy on loopback: reads an absolute-form request,
/// fetches it, and answers; counts what it carried.
pub async fn forward_proxy(count: Arc<AtomicUsize>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let (client, count) = (client.clone(), count.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let target = head.split_whitespace().nth(1).unwrap_or("").to_string();
                count.fetch_add(1, Ordering::SeqCst);
                let resp = client.get(&target).send().await.unwrap();
                let status = resp.status().as_u16();
                let ct = resp
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("text/html")
                    .to_string();
                let body = resp.bytes().await.unwrap();
                let head = format!("HTTP/1.1 {status} X\r\ncontent-type: {ct}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}")
}

/// A minimal SOCKS5 server on loopback (no auth, CONNECT only).
pub async fn socks5_proxy(count: Arc<AtomicUsize>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let count = count.clone();
            tokio::spawn(async move {
                let mut hello = [0u8; 2];
                sock.read_exact(&mut hello).await.ok()?;
                let mut methods = vec![0u8; hello[1] as usize];
                sock.read_exact(&mut methods).await.ok()?;
                sock.write_all(&[5, 0]).await.ok()?;
                let mut req = [0u8; 4];
                sock.read_exact(&mut req).await.ok()?;
                let target = match req[3] {
                    1 => {
                        let mut ip = [0u8; 4];
                        sock.read_exact(&mut ip).await.ok()?;
                        std::net::Ipv4Addr::from(ip).to_string()
                    }
                    3 => {
                        let mut len = [0u8; 1];
                        sock.read_exact(&mut len).await.ok()?;
                        let mut name = vec![0u8; len[0] as usize];
                        sock.read_exact(&mut name).await.ok()?;
                        String::from_utf8_lossy(&name).into_owned()
                    }
                    _ => return None,
                };
                let mut port = [0u8; 2];
                sock.read_exact(&mut port).await.ok()?;
                let mut upstream =
                    tokio::net::TcpStream::connect((target.as_str(), u16::from_be_bytes(port)))
                        .await
                        .ok()?;
                count.fetch_add(1, Ordering::SeqCst);
                sock.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await.ok()?;
                tokio::io::copy_bidirectional(&mut sock, &mut upstream)
                    .await
                    .ok()?;
                Some(())
            });
        }
    });
    format!("socks5://{addr}")
}

/// Outputs of ticks until `until` holds for them or `secs` pass.
pub async fn tick_until(
    f: &mut gleaner_fetch::FetchStage,
    secs: u64,
    until: impl Fn(&[Output]) -> bool,
) -> Vec<Output> {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut outs = Vec::new();
    while Instant::now() < end {
        outs.extend(f.tick().await);
        if until(&outs) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    outs
}
