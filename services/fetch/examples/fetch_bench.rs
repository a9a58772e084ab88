//! The fetch benchmark (run by scripts/bench-fetch.sh):
//!
//! `fetch_bench farm HOSTS PAGES` serves HOSTS sites on loopback ports, each
//! with a home page linking to PAGES pages of about 5 KB; it prints the ports
//! and, at `GET /__stats` on any of them, the smallest gap seen between two
//! requests to one host.
//!
//! `fetch_bench crawl DELAY_MS PORT...` crawls those sites (depth 1) with
//! the fetch stage alone on the in-process bus and prints pages/s and the
//! CPU time per page of this process.

use gleaner_core::memory::{MemoryOptions, MemoryPipeline};
use gleaner_core::messages::Seed;
use gleaner_core::stage::Output;
use gleaner_core::Topic;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Default)]
struct HostLog {
    last: Option<Instant>,
    min_gap: Option<Duration>,
    requests: u64,
}

async fn serve_host(
    listener: tokio::net::TcpListener,
    pages: usize,
    log: Arc<Mutex<HostLog>>,
    all: Arc<Mutex<Vec<Arc<Mutex<HostLog>>>>>,
) {
    let filler =
        "<p>The harbour bridge reopened to traffic on Monday after eight months of repairs. </p>"
            .repeat(55);
    let filler = Arc::new(filler);
    loop {
        let Ok((mut sock, _)) = listener.accept().await else {
            continue;
        };
        let (log, all, filler) = (log.clone(), all.clone(), filler.clone());
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                // One request per loop (keep-alive).
                let end = loop {
                    if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break p + 4;
                    }
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&buf[..end]).into_owned();
                buf.drain(..end);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let (status, body) = if path == "/__stats" {
                    let logs = all.lock().unwrap();
                    let min = logs.iter().filter_map(|l| l.lock().unwrap().min_gap).min();
                    let n: u64 = logs.iter().map(|l| l.lock().unwrap().requests).sum();
                    (
                        "200 OK",
                        format!(
                            "min_gap_ms={:.1} requests={n}\n",
                            min.map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
                        ),
                    )
                } else {
                    {
                        let mut l = log.lock().unwrap();
                        let now = Instant::now();
                        if let Some(prev) = l.last {
                            let gap = now - prev;
                            l.min_gap = Some(l.min_gap.map_or(gap, |m| m.min(gap)));
                        }
                        l.last = Some(now);
                        l.requests += 1;
                    }
                    if path == "/robots.txt" {
                        ("404 Not Found", String::new())
                    } else if path == "/" {
                        (
                            "200 OK",
                            (0..pages)
                                .map(|i| format!("<a href=\"/p/{i}\">page {i}</a>\n"))
                                .collect(),
                        )
                    } else {
                        ("200 OK", format!("<html><head><title>{path}</title></head><body>{filler}</body></html>"))
                    }
                };
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
                if sock.write_all(resp.as_bytes()).await.is_err() {
                    return;
                }
            }
        });
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("farm") => {
            let hosts: usize = args[2].parse()?;
            let pages: usize = args[3].parse()?;
            let all: Arc<Mutex<Vec<Arc<Mutex<HostLog>>>>> = Arc::default();
            let mut ports = Vec::new();
            for _ in 0..hosts {
                let l = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                ports.push(l.local_addr()?.port().to_string());
                let log: Arc<Mutex<HostLog>> = Arc::default();
                all.lock().unwrap().push(log.clone());
                tokio::spawn(serve_host(l, pages, log, all.clone()));
            }
            println!("{}", ports.join(" "));
            tokio::signal::ctrl_c().await?;
        }
        Some("crawl") => {
            let delay: u64 = args[2].parse()?;
            let ports = &args[3..];
            let cfg = gleaner_fetch::FetchSettings {
                per_host_delay_ms: delay,
                concurrency: 64,
                bloom_capacity: 1_000_000,
                ..Default::default()
            };
            let stage = gleaner_fetch::FetchStage::new(&cfg, true)?;
            let opts = MemoryOptions {
                channel_capacity: 1024,
                batch_max: 256,
                workers: 1,
                sink_dir: None,
                sink_topics: vec![],
            };
            let (t0, cpu0) = (Instant::now(), gleaner_core::util::process_cpu_seconds());
            // Wired as the registry places fetch first in a flow.
            let flow = gleaner_core::registry::Flow::new(
                &["fetch".to_string()],
                &[&gleaner_fetch::FetchSpec],
            )?;
            let wired = gleaner_core::Wired {
                wiring: flow.get("fetch").expect("placed").wiring(),
                stage: Box::new(stage),
            };
            let p = MemoryPipeline::start(vec![wired], &opts)?;
            for port in ports {
                let seed = Seed {
                    url: format!("http://127.0.0.1:{port}/"),
                    depth: Some(1),
                    ..Seed::default()
                };
                p.publish(Output::of(Topic::SEEDS, "h", &seed)).await;
            }
            p.wait_idle().await;
            let counts = p.shutdown().await?;
            let (secs, cpu) = (
                t0.elapsed().as_secs_f64(),
                gleaner_core::util::process_cpu_seconds() - cpu0,
            );
            let pages = counts[&Topic::PAGES];
            println!(
                "delay={delay}ms hosts={} pages={pages} dead_letters={} seconds={secs:.2} pages_per_s={:.0} cpu_ms_per_page={:.3}",
                ports.len(),
                counts[&Topic::DEAD_LETTER],
                pages as f64 / secs,
                cpu * 1000.0 / pages.max(1) as f64
            );
        }
        _ => anyhow::bail!(
            "usage: fetch_bench farm HOSTS PAGES | fetch_bench crawl DELAY_MS PORT..."
        ),
    }
    Ok(())
}
