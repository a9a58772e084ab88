//! Sitemaps (urlset and sitemap index) and RSS / Atom feeds: the URLs they
//! list, read with a small scanner (they are simple, and often not
//! well-formed enough for a strict XML parser).

/// What an XML document at a URL was.
#[derive(Debug, PartialEq)]
pub enum Feed {
    /// A sitemap index: more sitemaps.
    SitemapIndex(Vec<String>),
    /// A sitemap, RSS or Atom feed: pages.
    Pages(Vec<String>),
}

/// The sitemap protocol's limit per file.
const MAX_URLS: usize = 50_000;

/// Reads a sitemap or feed; `None` if the body is not one.
pub fn parse(body: &str) -> Option<Feed> {
    let head: String = body
        .chars()
        .take(2048)
        .collect::<String>()
        .to_ascii_lowercase();
    if head.contains("<sitemapindex") {
        return Some(Feed::SitemapIndex(texts(body, "loc")));
    }
    if head.contains("<urlset") {
        return Some(Feed::Pages(texts(body, "loc")));
    }
    if head.contains("<rss") || head.contains("<rdf:rdf") {
        return Some(Feed::Pages(texts(body, "link")));
    }
    if head.contains("<feed") {
        return Some(Feed::Pages(atom_links(body)));
    }
    None
}

fn unescape(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_prefix("<![CDATA[")
        .and_then(|x| x.strip_suffix("]]>"))
        .unwrap_or(s);
    s.trim()
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
}

/// The text of every `<tag>…</tag>` (any namespace prefix-free spelling).
fn texts(body: &str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find(&open) {
        rest = &rest[start + open.len()..];
        let Some(end) = rest.find(&close) else { break };
        let url = unescape(&rest[..end]);
        if url.starts_with("http://") || url.starts_with("https://") {
            out.push(url);
        }
        rest = &rest[end + close.len()..];
        if out.len() >= MAX_URLS {
            break;
        }
    }
    out
}

/// Atom: `<link href="…">` of each entry (rel alternate or none).
fn atom_links(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in body.split("<entry").skip(1) {
        let mut rest = entry;
        while let Some(start) = rest.find("<link") {
            rest = &rest[start + 5..];
            let Some(end) = rest.find('>') else { break };
            let tag = &rest[..end];
            let attr = |name: &str| {
                let at = tag.find(&format!("{name}="))? + name.len() + 1;
                let q = tag[at..].chars().next()?;
                let v = &tag[at + 1..];
                Some(unescape(&v[..v.find(q)?]))
            };
            if attr("rel").is_none_or(|r| r == "alternate") {
                if let Some(href) = attr("href").filter(|h| h.starts_with("http")) {
                    out.push(href);
                    break;
                }
            }
        }
        if out.len() >= MAX_URLS {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemaps_and_feeds() {
        let index = "<?xml version='1.0'?><sitemapindex xmlns='x'><sitemap><loc>https://x.test/s1.xml</loc></sitemap></sitemapindex>";
        assert_eq!(
            parse(index),
            Some(Feed::SitemapIndex(vec!["https://x.test/s1.xml".into()]))
        );
        let urlset = "<urlset><url><loc> https://x.test/a?x=1&amp;y=2 </loc></url><url><loc>https://x.test/b</loc></url></urlset>";
        assert_eq!(
            parse(urlset),
            Some(Feed::Pages(vec![
                "https://x.test/a?x=1&y=2".into(),
                "https://x.test/b".into()
            ]))
        );
        let rss = "<rss version='2.0'><channel><link>https://x.test/</link><item><title>t</title><link><![CDATA[https://x.test/p1]]></link></item></channel></rss>";
        assert_eq!(
            parse(rss),
            Some(Feed::Pages(vec![
                "https://x.test/".into(),
                "https://x.test/p1".into()
            ]))
        );
        let atom = "<feed xmlns='http://www.w3.org/2005/Atom'><link href='https://x.test/'/><entry><link rel='edit' href='https://x.test/e'/><link href=\"https://x.test/a1\"/></entry></feed>";
        assert_eq!(
            parse(atom),
            Some(Feed::Pages(vec!["https://x.test/a1".into()]))
        );
        assert_eq!(parse("<html><body>hi</body></html>"), None);
    }
}
