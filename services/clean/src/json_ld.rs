//! Page metadata from JSON-LD: the article's people, dates, image,
//! publisher and type, and its `articleBody`.

use crate::entities::{collapse, decode_entities};
use gleaner_core::messages::PageMeta;

/// Authors kept of a JSON-LD list (a page may list a whole newsroom).
const MAX_AUTHORS: usize = 20;

/// The URL of a JSON-LD image: a string, an `ImageObject`'s `url` (or
/// `contentUrl`), or the first of a list of either.
fn url_of(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        serde_json::Value::Object(o) => o.get("url").or(o.get("contentUrl")).and_then(url_of),
        serde_json::Value::Array(list) => list.iter().find_map(url_of),
        _ => None,
    }
}

/// The schema.org types that say what a page is (an article of some kind,
/// or a post of a forum or a question page), as against the site, the
/// organisation, the breadcrumbs or the images a page's JSON-LD also names.
const PAGE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "ReportageNewsArticle",
    "AnalysisNewsArticle",
    "OpinionNewsArticle",
    "ReviewNewsArticle",
    "ScholarlyArticle",
    "TechArticle",
    "LiveBlogPosting",
    "DiscussionForumPosting",
    "SocialMediaPosting",
    "QAPage",
    "Recipe",
    "Product",
];

/// A microdata `itemtype` (`https://schema.org/QAPage`, several URLs
/// separated by spaces) as the page type it names, if one of
/// [`PAGE_TYPES`].
pub(crate) fn page_type_named(itemtype: &str) -> Option<&'static str> {
    itemtype.split_whitespace().find_map(|url| {
        let name = url.trim_end_matches('/').rsplit('/').next()?;
        PAGE_TYPES.iter().copied().find(|t| *t == name)
    })
}

/// An object's `@type`s (a name or a list of names).
fn types_of(o: &serde_json::Map<String, serde_json::Value>) -> impl Iterator<Item = &str> {
    let (one, many) = match o.get("@type") {
        Some(serde_json::Value::String(t)) => (Some(t.as_str()), None),
        Some(serde_json::Value::Array(ts)) => (None, Some(ts.iter().filter_map(|t| t.as_str()))),
        _ => (None, None),
    };
    one.into_iter().chain(many.into_iter().flatten())
}

/// Whether an object is of the type `name`.
fn is_of_type(o: &serde_json::Map<String, serde_json::Value>, name: &str) -> bool {
    types_of(o).any(|t| t == name)
}

/// An object's `@type` if it is one of [`PAGE_TYPES`].
fn schema_type(o: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    types_of(o)
        .find(|t| PAGE_TYPES.contains(t))
        .map(str::to_string)
}

/// A JSON-LD script's JSON: without the `<![CDATA[ ... ]]>` or `<!-- ... -->`
/// some sites wrap it in (for XHTML parsers; Wikipedia and Libération do),
/// with or without `//` before each.
fn unwrapped(script: &str) -> &str {
    let mut s = script.trim();
    for (open, close) in [("<![CDATA[", "]]>"), ("<!--", "-->")] {
        let head = s.strip_prefix("//").unwrap_or(s).trim_start();
        if let Some(rest) = head.strip_prefix(open) {
            let rest = rest.trim_end();
            let rest = rest.strip_suffix(close).unwrap_or(rest).trim_end();
            s = rest.strip_suffix("//").unwrap_or(rest).trim();
        }
    }
    s
}

/// JSON with each control character (below U+0020) a space: templates
/// write a description's line breaks raw into its string (GameFAQs
/// does), which JSON forbids and search engines' readers let pass.
/// Outside a string a control character is whitespace or an error, so a
/// space loses nothing.
fn without_controls(json: &str) -> String {
    json.chars()
        .map(|c| if c < ' ' { ' ' } else { c })
        .collect()
}

/// A JSON-LD name as text. Some publishers (WordPress's Yoast among them)
/// escape its HTML entities ("Maria &amp; Katerina"), which a script's text
/// keeps as written; a name never means them literally. Nor the quotes
/// a template that encodes its values twice leaves around one
/// (`"name":"\"David Kim\""`).
fn json_ld_text(name: &str) -> String {
    collapse(&decode_entities(unquoted(name)))
}

/// A JSON-LD string without the double quotes a twice-encoded value
/// keeps around it.
fn unquoted(value: &str) -> &str {
    let v = value.trim();
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .filter(|inner| !inner.contains('"'))
        .unwrap_or(v)
}

/// The names of a JSON-LD object's `author` (a name, an object with a
/// `name`, or a list of them), of people only when `people` (an
/// `Organization` named as the author is the publisher).
fn authors_of(o: &serde_json::Map<String, serde_json::Value>, people: bool) -> Vec<String> {
    let name = |p: &serde_json::Value| {
        let organization = p
            .get("@type")
            .and_then(|t| t.as_str())
            .is_some_and(|t| t == "Organization" || t == "NewsMediaOrganization");
        if people && organization {
            return None;
        }
        p.get("name")
            .and_then(|n| n.as_str())
            .or(p.as_str())
            .map(json_ld_text)
            .filter(|n| !n.is_empty())
    };
    match o.get("author") {
        Some(serde_json::Value::Array(list)) => {
            list.iter().filter_map(name).take(MAX_AUTHORS).collect()
        }
        Some(one) => name(one).into_iter().collect(),
        None => Vec::new(),
    }
}

/// The page's author (all its authors joined) and, when several, each.
pub(crate) fn set_authors(meta: &mut PageMeta, authors: Vec<String>) {
    if authors.is_empty() {
        return;
    }
    meta.author = Some(authors.join(", "));
    meta.authors = if authors.len() > 1 {
        authors
    } else {
        Vec::new()
    };
}

/// Author, date and headline from JSON-LD (`Article`, `NewsArticle`, ... or
/// a `@graph` of them), which wins over meta tags for the date. Returns the
/// longest `articleBody` it carries, if any.
pub(crate) fn read_json_ld(meta: &mut PageMeta, scripts: &[String]) -> Option<String> {
    /// What the objects read so far gave: the article's people, and how
    /// sure the date is (0 none, 1 from any object, 2 from the page's own).
    #[derive(Default)]
    struct Found {
        people: bool,
        date: u8,
        /// The name of the `WebSite` the graph describes.
        website: Option<String>,
    }
    fn visit(
        v: &serde_json::Value,
        meta: &mut PageMeta,
        body: &mut Option<String>,
        found: &mut Found,
        depth: usize,
    ) {
        if depth > 8 {
            return;
        }
        match v {
            serde_json::Value::Array(a) => a
                .iter()
                .for_each(|x| visit(x, meta, body, found, depth + 1)),
            serde_json::Value::Object(o) => {
                if let Some(b) = o.get("articleBody").and_then(|b| b.as_str()) {
                    if body.as_ref().is_none_or(|known| b.len() > known.len()) {
                        *body = Some(b.to_string());
                    }
                }
                let typed = schema_type(o);
                if let Some(t) = &typed {
                    meta.page_type = Some(t.clone());
                    // The article's own image and publisher (an
                    // Organization's logo elsewhere in the graph is not).
                    if meta.image.is_none() {
                        meta.image = o.get("image").and_then(url_of);
                    }
                    if meta.site_name.is_none() {
                        meta.site_name = o
                            .get("publisher")
                            .and_then(|p| p.get("name"))
                            .and_then(|n| n.as_str())
                            .map(json_ld_text)
                            .filter(|n| !n.is_empty());
                    }
                }
                // The page's own object's dates win over another's (a
                // review's, an event's) wherever in the graph it sits.
                let sure = if typed.is_some() { 2 } else { 1 };
                let published = o
                    .get("datePublished")
                    .and_then(|d| d.as_str())
                    .map(|d| unquoted(d).to_string())
                    .filter(|d| !d.is_empty());
                if let Some(d) = published.filter(|_| found.date < sure) {
                    meta.date = Some(d);
                    found.date = sure;
                }
                // The article's own people win over the meta tags (a
                // publisher's `<meta name="author" content="Condé Nast">`);
                // any object's authors are taken while none are known.
                let people = authors_of(o, true);
                if typed.is_some() && !found.people && !people.is_empty() {
                    found.people = true;
                    set_authors(meta, people);
                } else if meta.author.is_none() {
                    set_authors(meta, authors_of(o, false));
                }
                if found.website.is_none() && is_of_type(o, "WebSite") {
                    found.website = o
                        .get("name")
                        .and_then(|n| n.as_str())
                        .map(json_ld_text)
                        .filter(|n| !n.is_empty());
                }
                if let Some(g) = o.get("@graph") {
                    visit(g, meta, body, found, depth + 1);
                }
                // A question page's question (Discourse's `QAPage`) or a
                // web page's article carries the author.
                if typed.is_some() || is_of_type(o, "WebPage") {
                    if let Some(entity) = o.get("mainEntity") {
                        visit(entity, meta, body, found, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
    let mut body = None;
    let mut found = Found::default();
    for s in scripts {
        let json = unwrapped(s);
        let parsed = serde_json::from_str::<serde_json::Value>(json)
            .or_else(|_| serde_json::from_str(&without_controls(json)));
        if let Ok(v) = parsed {
            visit(&v, meta, &mut body, &mut found, 0);
        }
    }
    // The site's own name when neither `og:site_name` nor the article's
    // publisher gives one.
    if meta.site_name.is_none() {
        meta.site_name = found.website;
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_with_raw_line_breaks_in_its_strings_is_read() {
        let html = "<script type=\"application/ld+json\">{\"@type\":\"DiscussionForumPosting\",\n\t\"description\":\"One line.\n\nAnother.\",\"datePublished\":\"2024-02-21 13:00:00\",\"author\":{\"@type\":\"Person\",\"name\":\"Need2KnowLion\"}}</script><p>x</p>";
        let (_, meta, _) = crate::clean_html(html).unwrap();
        assert_eq!(meta.author.as_deref(), Some("Need2KnowLion"));
        assert_eq!(meta.date.as_deref(), Some("2024-02-21 13:00:00"));
    }

    #[test]
    fn json_ld_wrapped_for_xhtml_parsers_is_read() {
        for script in [
            "<![CDATA[ {\"a\":1} ]]>",
            "\n  //<![CDATA[\n{\"a\":1}\n//]]>\n",
            "<!-- {\"a\":1} -->",
            " {\"a\":1} ",
        ] {
            assert_eq!(unwrapped(script), "{\"a\":1}", "{script:?}");
        }
        let html = r#"<script type="application/ld+json">
            <![CDATA[
            {"@type":"Article","datePublished":"2019-03-01","author":{"@type":"Organization","name":"Contributors to Wikimedia projects"}}
            ]]></script><p>x</p>"#;
        let (_, meta, _) = crate::clean_html(html).unwrap();
        assert_eq!(meta.date.as_deref(), Some("2019-03-01"));
        assert_eq!(
            meta.author.as_deref(),
            Some("Contributors to Wikimedia projects")
        );
    }

    /// The page's own JSON-LD object's date wins over another object's,
    /// before or after it; meta tags by other names give the date too.
    #[test]
    fn the_pages_own_object_dates_it() {
        let date = |html: &str| crate::clean_html(html).unwrap().1.date;
        let graph = r#"<script type="application/ld+json">{"@graph":[
            {"@type":"NewsArticle","datePublished":"2025-12-18"},
            {"@type":"WebPage","datePublished":"2025-03-01"}]}</script>
            <script type="application/ld+json">{"@type":"Review","datePublished":"2024-01-01"}</script><p>x</p>"#;
        assert_eq!(date(graph).as_deref(), Some("2025-12-18"));
        let after = r#"<script type="application/ld+json">[{"@type":"WebPage","datePublished":"2025-03-01"},{"@type":"BlogPosting","datePublished":"2025-12-18"}]</script><p>x</p>"#;
        assert_eq!(date(after).as_deref(), Some("2025-12-18"));
        for key in ["published", "citation_publication_date", "dcterms.date"] {
            let page = format!(r#"<meta name="{key}" content="July 17, 2025"><p>x</p>"#);
            assert_eq!(date(&page).as_deref(), Some("July 17, 2025"), "{key}");
        }
    }

    /// The `WebSite` a graph describes names the site when neither
    /// `og:site_name` nor the article's publisher does.
    #[test]
    fn the_websites_name_is_the_last_word_on_the_site() {
        let site = |html: &str| crate::clean_html(html).unwrap().1.site_name;
        let graph = r#"<script type="application/ld+json">{"@graph":[{"@type":"WebSite","name":"Quay &amp; Notes"},{"@type":"BlogPosting","headline":"x"}]}</script><p>x</p>"#;
        assert_eq!(site(graph).as_deref(), Some("Quay & Notes"));
        let og = format!(r#"<meta property="og:site_name" content="Quay">{graph}"#);
        assert_eq!(site(&og).as_deref(), Some("Quay"));
        let publisher = r#"<script type="application/ld+json">[{"@type":"WebSite","name":"Site"},{"@type":"NewsArticle","publisher":{"name":"Paper"}}]</script><p>x</p>"#;
        assert_eq!(site(publisher).as_deref(), Some("Paper"));
    }

    /// A question page's question (Discourse's `QAPage`) and a web page's
    /// main entity carry the author.
    #[test]
    fn the_main_entity_names_the_author() {
        let author = |html: &str| crate::clean_html(html).unwrap().1.author;
        let qa = r#"<script type="application/ld+json">{"@type":"QAPage","mainEntity":{"@type":"Question","author":{"@type":"Person","name":"DaleJack"}}}</script><p>x</p>"#;
        assert_eq!(author(qa).as_deref(), Some("DaleJack"));
        let page = r#"<script type="application/ld+json">{"@type":"WebPage","mainEntity":{"@type":"DiscussionForumPosting","author":{"name":"beijingwalker"}}}</script><p>x</p>"#;
        assert_eq!(author(page).as_deref(), Some("beijingwalker"));
        let other = r#"<script type="application/ld+json">{"@type":"Event","mainEntity":{"author":{"name":"Nobody"}}}</script><p>x</p>"#;
        assert_eq!(author(other), None);
    }

    /// Values a template encoded twice lose the quotes left around them.
    #[test]
    fn twice_encoded_values_lose_their_quotes() {
        let page = r#"<script type="application/ld+json">{"@type":"BlogPosting","datePublished":"\"2025-12-17T13:22:47Z\"","author":{"@type":"Person","name":"\"David Kim\""},"publisher":{"name":"\"Terabyte Systems\""}}</script><p>x</p>"#;
        let meta = crate::clean_html(page).unwrap().1;
        assert_eq!(meta.author.as_deref(), Some("David Kim"));
        assert_eq!(meta.date.as_deref(), Some("2025-12-17T13:22:47Z"));
        assert_eq!(meta.site_name.as_deref(), Some("Terabyte Systems"));
        assert_eq!(unquoted(r#""Weird Al" Yankovic"#), r#""Weird Al" Yankovic"#);
    }
}
