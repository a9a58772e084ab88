//! Link discovery: `<a href>` targets resolved against the page URL (or its
//! `<base href>`), http(s) only, without fragments, `rel=nofollow` skipped.

use lol_html::{element, HtmlRewriter, MemorySettings, Settings};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use url::Url;

/// Links kept (in order), their set, and how many were left out.
type Found = (Vec<String>, HashSet<String>, usize);

/// The links of a page, the first `max` distinct ones, and how many `<a
/// href>` after the cap were not looked at (counted, never silently cut).
pub fn extract(html: &str, page_url: &Url, max: usize) -> (Vec<String>, usize) {
    let base = Rc::new(RefCell::new(page_url.clone()));
    let found: Rc<RefCell<Found>> = Rc::default();
    let (b1, b2, f) = (base.clone(), base.clone(), found.clone());
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![
                element!("base[href]", move |el| {
                    if let Some(u) = el
                        .get_attribute("href")
                        .and_then(|h| b1.borrow().join(h.trim()).ok())
                    {
                        *b1.borrow_mut() = u;
                    }
                    Ok(())
                }),
                element!("a[href]", move |el| {
                    if el
                        .get_attribute("rel")
                        .is_some_and(|r| r.to_ascii_lowercase().contains("nofollow"))
                    {
                        return Ok(());
                    }
                    let mut f = f.borrow_mut();
                    if f.0.len() >= max {
                        f.2 += 1;
                        return Ok(());
                    }
                    let href = el.get_attribute("href").unwrap_or_default();
                    let href = gleaner_clean::decode_attribute(href.trim());
                    if let Ok(mut u) = b2.borrow().join(&href) {
                        if matches!(u.scheme(), "http" | "https") {
                            u.set_fragment(None);
                            let s = u.to_string();
                            if f.1.insert(s.clone()) {
                                f.0.push(s);
                            }
                        }
                    }
                    Ok(())
                }),
            ],
            memory_settings: MemorySettings {
                max_allowed_memory_usage: 64 << 20,
                ..MemorySettings::new()
            },
            strict: false,
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    // A page that lol_html cannot parse to the end still yields the links
    // found before the problem.
    if rewriter.write(html.as_bytes()).is_ok() {
        let _ = rewriter.end();
    }
    let mut found = found.borrow_mut();
    (std::mem::take(&mut found.0), found.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_dedups_and_skips() {
        let page = Url::parse("http://x.test/news/a.html").unwrap();
        let html = r#"<a href="b.html">b</a><a href="/c?x=1&amp;y=2#top">c</a><a href="b.html#f">b again</a>
            <a href="mailto:a@b">m</a><a rel="nofollow" href="/secret">s</a><a href="https://y.test/">y</a>"#;
        assert_eq!(
            extract(html, &page, 100).0,
            vec![
                "http://x.test/news/b.html",
                "http://x.test/c?x=1&y=2",
                "https://y.test/"
            ]
        );
        // Capped at 1: the other five links (nofollow is skipped, not cut)
        // are counted as left out.
        let (kept, cut) = extract(html, &page, 1);
        assert_eq!(kept.len(), 1);
        assert_eq!(cut, 4);
    }
}
