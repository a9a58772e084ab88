//! Which links are followed: tracking parameters, scope, allow and deny
//! patterns, sitemaps and feeds.

mod common;

use axum::http::header;
use axum::routing::get;
use axum::Router;
use common::*;
use gleaner_core::messages::{FrontierLink, Seed};
use gleaner_core::stage::{Output, Stage};
use gleaner_core::Topic;

#[tokio::test]
async fn fetch_strips_tracking_parameters_and_keeps_scope() {
    let app = Router::new().fallback(|| async {
        axum::response::Html(
            "<a href='/a?utm_source=x&id=1'>a</a><a href='/a?id=1&fbclid=y'>again</a>\
             <a href='http://other.test/b'>other host</a><a href='/c#frag'>c</a>",
        )
    });
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let outs = f
        .handle(&seed(&format!("{base}/?utm_campaign=z"), 1))
        .await
        .unwrap();
    assert_eq!(page_of(&outs).url, format!("{base}/"));
    let links: Vec<String> = outs
        .iter()
        .filter(|o| o.topic == Topic::FRONTIER)
        .map(|o| o.decode::<FrontierLink>().unwrap().url)
        .collect();
    assert_eq!(links, vec![format!("{base}/a?id=1"), format!("{base}/c")]);
    assert_eq!(
        gleaner_fetch::registered_domain("news.bbc.co.uk"),
        "bbc.co.uk"
    );
    assert_eq!(
        gleaner_fetch::registered_domain("www.example.com"),
        "example.com"
    );
}

/// A seed's allow and deny patterns bound the links it follows.
#[tokio::test]
async fn fetch_follows_allow_and_deny_patterns() {
    let base = serve(Router::new().fallback(|| async {
        axum::response::Html(
            "<a href='/news/a'>a</a><a href='/news/old-1'>old</a><a href='/about'>about</a>",
        )
    }))
    .await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let s = Seed {
        url: format!("{base}/"),
        depth: Some(1),
        allow: vec![format!("{base}/news/")],
        deny: vec!["*/news/old*".into()],
        ..Seed::default()
    };
    let input = seed_input(&s);
    let outs = f.handle(&input).await.unwrap();
    let links: Vec<FrontierLink> = outs
        .iter()
        .filter(|o| o.topic == Topic::FRONTIER)
        .map(|o| o.decode().unwrap())
        .collect();
    assert_eq!(
        links.iter().map(|l| l.url.clone()).collect::<Vec<_>>(),
        vec![format!("{base}/news/a")]
    );
    assert_eq!(
        links[0].deny,
        vec!["*/news/old*".to_string()],
        "patterns travel with the link"
    );
    assert!(gleaner_fetch::url_matches(
        "https://x.test/a/*/b",
        "https://x.test/a/1/2/b"
    ));
    assert!(!gleaner_fetch::url_matches(
        "https://x.test/a/*/b",
        "https://x.test/a/1/c"
    ));
}

/// Sitemaps (found in robots.txt, and sitemap indexes) and RSS feeds give
/// their URLs to the frontier; a sitemap step does not use up depth.
#[tokio::test]
async fn fetch_reads_sitemaps_from_robots_and_feeds() {
    let app = Router::new()
        .route("/robots.txt", get(|| async { "User-agent: *\nAllow: /\nSitemap: /sitemap_index.xml\n" }))
        .route(
            "/sitemap_index.xml",
            get(|| async {
                ([(header::CONTENT_TYPE, "application/xml")], "<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>SELF/sitemap1.xml</loc></sitemap></sitemapindex>")
            }),
        )
        .route(
            "/sitemap1.xml",
            get(|| async { ([(header::CONTENT_TYPE, "text/xml")], "<urlset><url><loc>SELF/a</loc></url><url><loc>SELF/b</loc></url></urlset>") }),
        )
        .route(
            "/feed.rss",
            get(|| async {
                ([(header::CONTENT_TYPE, "application/rss+xml")], "<rss><channel><item><link>SELF/news/1</link></item></channel></rss>")
            }),
        )
        .fallback(|| async { axum::response::Html("<p>page</p>") });
    // The documents name absolute URLs: serve them with this server's address.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let b = base.clone();
    let app = app.layer(axum::middleware::map_response(
        move |resp: axum::response::Response| {
            let b = b.clone();
            async move {
                let (parts, body) = resp.into_parts();
                let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                let text = String::from_utf8_lossy(&bytes).replace("SELF", &b);
                axum::response::Response::from_parts(parts, axum::body::Body::from(text))
            }
        },
    ));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let frontier = |outs: &[Output]| -> Vec<(String, u32)> {
        outs.iter()
            .filter(|o| o.topic == Topic::FRONTIER)
            .map(|o| o.decode::<FrontierLink>().unwrap())
            .map(|l| (l.url, l.depth))
            .collect()
    };
    let outs = f.handle(&seed(&format!("{base}/"), 1)).await.unwrap();
    assert_eq!(
        frontier(&outs),
        vec![(format!("{base}/sitemap_index.xml"), 0)]
    );
    let follow = |url: &str, depth: u32| frontier_link(url, depth);
    let outs = f
        .handle(&follow(&format!("{base}/sitemap_index.xml"), 0))
        .await
        .unwrap();
    assert!(
        outs.iter().all(|o| o.topic != Topic::PAGES),
        "a sitemap is not a page"
    );
    assert_eq!(frontier(&outs), vec![(format!("{base}/sitemap1.xml"), 0)]);
    let outs = f
        .handle(&follow(&format!("{base}/sitemap1.xml"), 0))
        .await
        .unwrap();
    assert_eq!(
        frontier(&outs),
        vec![(format!("{base}/a"), 1), (format!("{base}/b"), 1)]
    );
    let outs = f
        .handle(&seed(&format!("{base}/feed.rss"), 1))
        .await
        .unwrap();
    assert_eq!(frontier(&outs), vec![(format!("{base}/news/1"), 1)]);
}

/// A gzip-compressed sitemap (`sitemap.xml.gz`, served as gzip) is read
/// like a plain one.
#[tokio::test]
async fn fetch_reads_gzip_sitemaps() {
    use std::io::Write;
    let base_of: std::sync::Arc<std::sync::Mutex<String>> = Default::default();
    let b = base_of.clone();
    let app = Router::new().route(
        "/sitemap.xml.gz",
        get(move || {
            let base = b.lock().unwrap().clone();
            async move {
                let xml = format!(
                    "<urlset><url><loc>{base}/a</loc></url><url><loc>{base}/b</loc></url></urlset>"
                );
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(xml.as_bytes()).unwrap();
                (
                    [(header::CONTENT_TYPE, "application/x-gzip")],
                    gz.finish().unwrap(),
                )
            }
        }),
    );
    let base = serve(app).await;
    *base_of.lock().unwrap() = base.clone();
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let outs = f
        .handle(&frontier_link(&format!("{base}/sitemap.xml.gz"), 0))
        .await
        .unwrap();
    let links: Vec<String> = outs
        .iter()
        .filter(|o| o.topic == Topic::FRONTIER)
        .map(|o| o.decode::<FrontierLink>().unwrap().url)
        .collect();
    assert_eq!(links, vec![format!("{base}/a"), format!("{base}/b")]);
}

/// A link that several pages give (a site's navigation) goes to the
/// frontier once while it waits there, until it comes back and is planned.
#[tokio::test]
async fn a_link_many_pages_give_is_sent_once() {
    let app = Router::new().fallback(|uri: axum::http::Uri| async move {
        axum::response::Html(format!(
            "<a href='/about'>about</a><a href='/contact'>contact</a><a href='/own{}'>own</a>",
            uri.path().trim_start_matches('/')
        ))
    });
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let mut sent = Vec::new();
    for page in ["a", "b", "c"] {
        let outs = f.handle(&seed(&format!("{base}/{page}"), 2)).await.unwrap();
        sent.extend(
            outs.iter()
                .filter(|o| o.topic == Topic::FRONTIER)
                .map(|o| o.decode::<FrontierLink>().unwrap().url),
        );
    }
    sent.sort();
    let want: Vec<String> = ["about", "contact", "owna", "ownb", "ownc"]
        .iter()
        .map(|p| format!("{base}/{p}"))
        .collect();
    assert_eq!(sent, want);
}

/// A link longer than fetch.max_url_length (a trap's ever deeper path) is
/// not followed, and counted; a seed that long is refused with its reason.
#[tokio::test]
async fn a_url_past_the_length_cap_is_neither_followed_nor_fetched() {
    let trap = "/loop".repeat(500);
    let page = format!("<a href='{trap}'>deeper</a><a href='/next'>next</a>");
    let app = Router::new().fallback(move || {
        let page = page.clone();
        async move { axum::response::Html(page) }
    });
    let base = serve(app).await;
    let mut f = gleaner_fetch::FetchStage::new(&fetch_cfg(), true).unwrap();
    let before = gleaner_core::metrics::value("gleaner_fetch_links_too_long_total", &[]);
    let outs = f.handle(&seed(&format!("{base}/"), 1)).await.unwrap();
    let links: Vec<String> = outs
        .iter()
        .filter(|o| o.topic == Topic::FRONTIER)
        .map(|o| o.decode::<FrontierLink>().unwrap().url)
        .collect();
    assert_eq!(links, vec![format!("{base}/next")]);
    let after = gleaner_core::metrics::value("gleaner_fetch_links_too_long_total", &[]);
    assert_eq!(after - before, 1.0);

    let said = fetch_error(&mut f, &format!("{base}{trap}")).await;
    assert!(
        said.contains("characters, longer than fetch.max_url_length (2083)"),
        "{said}"
    );
}
