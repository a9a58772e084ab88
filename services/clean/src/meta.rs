//! Page metadata from <meta>, <html lang>, <time> and JSON-LD.

use crate::blocks::State;
use crate::entities::{collapse, decode_attribute, decode_entities};
use gleaner_core::messages::PageMeta;

/// Whether a card's label introduces the writer ("Written by", and the
/// translations Yoast ships for the languages gleaner stems).
fn names_the_writer(label: &str) -> bool {
    const LABELS: &[&str] = &[
        "written by",
        "author",
        "geschrieben von",
        "verfasst von",
        "autor",
        "écrit par",
        "auteur",
        "escrito por",
        "scritto da",
        "autore",
        "geschreven door",
        "написано",
        "автор",
    ];
    let label = label.trim().trim_end_matches(':').to_lowercase();
    LABELS.contains(&label.as_str())
}

pub(crate) fn read_meta(s: &mut State, tag: &str, el: &lol_html::html_content::Element) {
    let attr = |n: &str| {
        el.get_attribute(n)
            .map(|v| collapse(&decode_attribute(&v)))
            .filter(|v| !v.is_empty())
    };
    match tag {
        "html" if s.meta.language.is_none() => s.meta.language = attr("lang"),
        "meta" => {
            let key = attr("name")
                .or_else(|| attr("property"))
                .or_else(|| attr("itemprop"))
                .or_else(|| attr("http-equiv"));
            let (Some(key), Some(content)) = (key, attr("content")) else {
                return;
            };
            let m = &mut s.meta;
            match key.to_ascii_lowercase().as_str() {
                "description" | "og:description" if m.description.is_none() => {
                    m.description = Some(content)
                }
                "author" | "article:author" | "og:article:author" | "dc.creator"
                | "sailthru.author" | "parsely-author" | "cxenseparse:author"
                    if m.author.is_none() && !content.starts_with("http") =>
                {
                    m.author = Some(content)
                }
                // Highwire Press's tags, which Google Scholar reads: one
                // per author of a paper, in order (PubMed Central, arXiv,
                // journals' pages); the older plural, one per author too
                // (JMIR) or all of them split by semicolons (bepress).
                "citation_author" | "citation_authors" => s.citation_authors.extend(
                    content
                        .split(';')
                        .map(str::trim)
                        .filter(|a| !a.is_empty())
                        .map(first_name_first),
                ),
                // Slack's and Twitter's labelled cards, as WordPress's Yoast
                // writes them: `twitter:label1` "Written by", then
                // `twitter:data1` the name.
                k if k.starts_with("twitter:label") && names_the_writer(&content) => {
                    s.twitter_author_slot = Some(k["twitter:label".len()..].to_string());
                }
                k if k.starts_with("twitter:data")
                    && s.twitter_author_slot.as_deref() == Some(&k["twitter:data".len()..]) =>
                {
                    s.meta.card_author.get_or_insert(content);
                }
                "article:published_time"
                | "og:published_time"
                | "datepublished"
                | "date"
                | "dc.date"
                | "dc.date.issued"
                | "dcterms.date"
                | "dcterms.issued"
                | "pubdate"
                | "publish-date"
                | "publish_date"
                | "published"
                | "publication_date"
                | "citation_publication_date"
                | "citation_date"
                | "sailthru.date"
                | "parsely-pub-date"
                    if m.date.is_none() =>
                {
                    m.date = Some(content)
                }
                "content-language" | "og:locale" | "language" if m.language.is_none() => {
                    m.language = Some(content.replace('_', "-"))
                }
                "og:title" | "twitter:title" if m.og_title.is_none() => m.og_title = Some(content),
                "og:site_name" if m.site_name.is_none() => m.site_name = Some(content),
                "og:url" if m.canonical_url.is_none() => m.canonical_url = Some(content),
                "og:type" if m.page_type.is_none() => m.page_type = Some(content),
                "og:image"
                | "og:image:url"
                | "og:image:secure_url"
                | "twitter:image"
                | "twitter:image:src"
                    if m.image.is_none() =>
                {
                    m.image = Some(content)
                }
                _ => {}
            }
        }
        "link" if attr("rel").is_some_and(|r| r.eq_ignore_ascii_case("canonical")) => {
            if let Some(href) = attr("href") {
                s.meta.canonical_url = Some(href);
            }
        }
        // Reddit writes each post's poster and time as attributes of its
        // element (`<shreddit-post author="..." created-timestamp="...">`),
        // not as text: the first post, the thread's, is the page's. A
        // per-site rule for one of the most crawled forums.
        "shreddit-post" if !s.reddit_post_read => {
            s.reddit_post_read = true;
            if s.poster.found.is_none() {
                s.poster.found = attr("author").filter(|a| a.len() <= 64);
            }
            if let Some(at) = attr("created-timestamp").filter(|d| d.len() <= 64) {
                s.time_datetimes.insert(0, at);
                s.time_datetimes.truncate(crate::local_date::MAX_TIMES);
            }
        }
        "time" if s.time_datetimes.len() < crate::local_date::MAX_TIMES => {
            // A date-time is short; a longer value is none (and not kept).
            s.time_datetimes
                .extend(attr("datetime").filter(|d| d.len() <= 64))
        }
        _ => {}
    }
}

/// `meta` with what it lacks taken from `more`, the metadata of the
/// markup a page gives crawlers in `<noscript>`.
pub(crate) fn fill_missing(meta: &mut PageMeta, more: PageMeta) {
    let fill = |mine: &mut Option<String>, theirs: Option<String>| {
        if mine.is_none() {
            *mine = theirs;
        }
    };
    fill(&mut meta.description, more.description);
    fill(&mut meta.author, more.author);
    fill(&mut meta.date, more.date);
    fill(&mut meta.language, more.language);
    fill(&mut meta.canonical_url, more.canonical_url);
    fill(&mut meta.site_name, more.site_name);
    fill(&mut meta.og_title, more.og_title);
    fill(&mut meta.page_type, more.page_type);
    fill(&mut meta.image, more.image);
    fill(&mut meta.linked_author, more.linked_author);
    fill(&mut meta.card_author, more.card_author);
    fill(&mut meta.pictured_author, more.pictured_author);
    if meta.authors.is_empty() {
        meta.authors = more.authors;
    }
}

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

/// JSON with each control character a space: templates write a
/// description's line breaks raw into its string (GameFAQs does), which
/// JSON forbids and search engines' readers let pass. Outside a string a
/// control character is whitespace or an error, so a space loses nothing.
fn without_controls(json: &str) -> String {
    json.chars()
        .map(|c| {
            if c.is_control() && (c as u32) < 0x20 {
                ' '
            } else {
                c
            }
        })
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

/// "Roy, Aniruddha" as "Aniruddha Roy": Highwire's tags allow the surname
/// first, which joined into one line ("Roy, Aniruddha, Patel, Jyoti")
/// would no longer say who is who.
fn first_name_first(name: &str) -> String {
    match name.split_once(',') {
        Some((last, first)) if !first.contains(',') && !first.trim().is_empty() => {
            format!("{} {}", first.trim(), last.trim())
        }
        _ => name.to_string(),
    }
}

/// A paper's authors from its `citation_author` tags, when no other meta
/// tag named an author or the one it named is the first of them (a
/// journal's `DC.Creator` giving the first author alone); the page's
/// JSON-LD, read after, may still name them.
pub(crate) fn set_citation_authors(meta: &mut PageMeta, authors: Vec<String>) {
    let first_alone = authors.len() > 1
        && meta
            .author
            .as_deref()
            .is_some_and(|a| a.trim().eq_ignore_ascii_case(authors[0].trim()));
    if meta.author.is_none() || first_alone {
        set_authors(meta, authors);
    }
}

/// The page's author (all its authors joined) and, when several, each.
fn set_authors(meta: &mut PageMeta, authors: Vec<String>) {
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

    /// The writer on a labelled card (Yoast's `twitter:label1` "Written
    /// by" and `twitter:data1`); the other cards ("Est. reading time")
    /// name no one.
    #[test]
    fn a_written_by_card_names_the_writer() {
        let author = |html: &str| crate::clean_html(html).unwrap().1.card_author;
        let card = r#"<meta name="twitter:label1" content="Est. reading time"><meta name="twitter:data1" content="4 minutes">
            <meta name="twitter:label2" content="Written by"><meta name="twitter:data2" content="Chase Bernath"><p>x</p>"#;
        assert_eq!(author(card).as_deref(), Some("Chase Bernath"));
        let german = r#"<meta name="twitter:label1" content="Geschrieben von"><meta name="twitter:data1" content="Anna Schmidt"><p>x</p>"#;
        assert_eq!(author(german).as_deref(), Some("Anna Schmidt"));
        let time_only = r#"<meta name="twitter:label1" content="Est. reading time"><meta name="twitter:data1" content="4 minutes"><p>x</p>"#;
        assert_eq!(author(time_only), None);
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

    /// A paper's `citation_author` tags (Google Scholar's) name its
    /// authors, in order, given name first; a meta author tag or the
    /// article's JSON-LD people come first.
    #[test]
    fn citation_author_tags_name_a_papers_authors() {
        let paper = r#"<meta name="citation_title" content="Role of Physical Activity">
            <meta name="citation_author" content="Aditya Mahindru">
            <meta name="citation_author_institution" content="Department of Psychiatry">
            <meta name="citation_author" content="Patil, Pradeep"><p>x</p>"#;
        let meta = crate::clean_html(paper).unwrap().1;
        assert_eq!(
            meta.author.as_deref(),
            Some("Aditya Mahindru, Pradeep Patil")
        );
        assert_eq!(meta.authors, ["Aditya Mahindru", "Pradeep Patil"]);
        let tagged = format!(r#"<meta name="author" content="Jane Doe">{paper}"#);
        assert_eq!(
            crate::clean_html(&tagged).unwrap().1.author.as_deref(),
            Some("Jane Doe")
        );
        let ld = format!(
            r#"{paper}<script type="application/ld+json">{{"@type":"ScholarlyArticle","author":[{{"@type":"Person","name":"Bo Chen"}}]}}</script>"#
        );
        assert_eq!(
            crate::clean_html(&ld).unwrap().1.author.as_deref(),
            Some("Bo Chen")
        );
        // The plural, one tag each or several names split by semicolons;
        // a creator tag naming the first of them alone gives way.
        let plural = r#"<meta name="DC.Creator" content="Jennifer Huberty">
            <meta name="citation_authors" content="Jennifer Huberty">
            <meta name="citation_authors" content="Green, Jeni; Linda Larkey"><p>x</p>"#;
        assert_eq!(
            crate::clean_html(plural).unwrap().1.authors,
            ["Jennifer Huberty", "Jeni Green", "Linda Larkey"]
        );
    }
}
