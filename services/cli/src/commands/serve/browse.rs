//! What the search page adds around the hits, all plain links so that it
//! works without JavaScript: the count, the order, facets as counts that
//! filter, paging; and the article view (`/article/{id}`) with every
//! summary and the copies. Every value is escaped (htmlize).

use gleaner_index::{ArticleView, Facets, SearchResults};
use htmlize::{escape_attribute, escape_text};
use std::fmt::Write;

/// The page's query string as pairs, to make links that change one thing.
#[derive(Clone)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    pub fn parse(raw: &str) -> Self {
        Params(
            url::form_urlencoded::parse(raw.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The pairs with a value.
    pub fn without_empty(self) -> Self {
        Params(self.0.into_iter().filter(|(_, v)| !v.is_empty()).collect())
    }

    /// The pairs as a query string.
    pub fn query_string(&self) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.0 {
            s.append_pair(k, v);
        }
        s.finish()
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A link to the page with `key` set to `value` (every other value of
    /// `key` dropped unless `add`), back at the first page.
    pub fn with(&self, key: &str, value: &str, add: bool) -> String {
        self.with_all(&[(key, value)], add)
    }

    /// [`Params::with`] for several keys at once.
    pub fn with_all(&self, set: &[(&str, &str)], add: bool) -> String {
        self.link_to("/", set, add)
    }

    /// [`Params::with_all`] for the page at `path`.
    pub fn link_to(&self, path: &str, set: &[(&str, &str)], add: bool) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.0 {
            let replaced = !add && set.iter().any(|(key, _)| k == key);
            if k == "offset" || k == "cursor" || replaced {
                continue;
            }
            s.append_pair(k, v);
        }
        for (k, v) in set {
            s.append_pair(k, v);
        }
        format!("{path}?{}", s.finish())
    }

    /// A link to the same search at `offset`.
    pub fn at(&self, offset: usize) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in self
            .0
            .iter()
            .filter(|(k, _)| k != "offset" && k != "cursor")
        {
            s.append_pair(k, v);
        }
        s.append_pair("offset", &offset.to_string());
        format!("/?{}", s.finish())
    }
}

/// The line over the hits: how many, how long, and the order to choose.
pub fn summary_line(page: &mut String, found: &SearchResults, p: &Params) {
    let sort = p.get("sort").unwrap_or("relevance");
    let _ = write!(
        page,
        "<p class=\"note\" role=\"status\">{} article{}{} · {:.0} ms · order:",
        found.total,
        if found.total == 1 { "" } else { "s" },
        found
            .widened()
            .map_or(String::new(), |how| format!(" ({how})")),
        found.took_ms
    );
    let group = p.get("group").unwrap_or("story");
    for (key, chosen, choices) in [
        ("sort", sort, &["relevance", "newest", "oldest"][..]),
        ("group", group, &["story", "article"][..]),
    ] {
        if key == "group" {
            page.push_str(" · one hit per:");
        }
        for &s in choices {
            if s == chosen {
                let _ = write!(page, " <b aria-current=\"true\">{s}</b>");
            } else {
                let _ = write!(
                    page,
                    " <a href=\"{}\">{s}</a>",
                    escape_attribute(p.with(key, s, false))
                );
            }
        }
    }
    page.push_str("</p>");
}

/// Facets as counts that filter: a site or a language adds its filter, a
/// month sets the dates to it.
pub fn facets(page: &mut String, f: &Facets, p: &Params) {
    page.push_str("<nav class=\"facets\" aria-label=\"Narrow the results\">");
    let mut group = |name: &str, rows: &[(String, u64)], link: &dyn Fn(&str) -> String| {
        if rows.is_empty() {
            return;
        }
        let _ = write!(page, "<section><h3>{name}</h3><ul>");
        for (value, n) in rows.iter().take(10) {
            let _ = write!(
                page,
                "<li><a href=\"{}\">{}</a> <span class=\"n\">{n}</span></li>",
                escape_attribute(link(value)),
                escape_text(value)
            );
        }
        page.push_str("</ul></section>");
    };
    group("Sites", &f.site, &|v| p.with("site", v, true));
    group("Languages", &f.language, &|v| p.with("lang", v, false));
    group("Months", &f.month, &|v| {
        let from = format!("{v}-01");
        let to = month_end(v).unwrap_or_else(|| from.clone());
        p.with_all(&[("from", &from), ("to", &to)], false)
    });
    page.push_str("</nav>");
}

/// The last day of a `YYYY-MM` month.
fn month_end(month: &str) -> Option<String> {
    let first: jiff::civil::Date = format!("{month}-01").parse().ok()?;
    Some(first.last_of_month().to_string())
}

/// Links to the pages before and after.
pub fn paging(page: &mut String, found: &SearchResults, p: &Params, offset: usize, limit: usize) {
    page.push_str("<nav class=\"paging\" aria-label=\"Pages\">");
    if offset > 0 {
        let _ = write!(
            page,
            "<a rel=\"prev\" href=\"{}\">Previous</a> ",
            escape_attribute(p.at(offset.saturating_sub(limit)))
        );
    }
    let shown_to = offset + found.hits.len();
    if found.hits.len() == limit && (shown_to as u64) < found.total {
        let _ = write!(
            page,
            "<a rel=\"next\" href=\"{}\">Next</a>",
            escape_attribute(p.at(offset + limit))
        );
    }
    page.push_str("</nav>");
}

/// A date as shown: one given without its time (midnight UTC) as the day.
fn shown_date(rfc3339: &str) -> &str {
    rfc3339.strip_suffix("T00:00:00Z").unwrap_or(rfc3339)
}

/// The article view: its text, every summary, its metadata and copies.
pub fn article(a: &ArticleView, style: &str) -> String {
    let mut page = String::with_capacity(a.text.len() + 4096);
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"{}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{} · gleaner</title><style>{style}</style></head><body>\
         <p><a href=\"/\">← Search</a></p><article><h1>{}</h1>",
        escape_attribute(a.language.as_deref().unwrap_or("en")),
        escape_text(&a.title),
        escape_text(&a.title),
    );
    let published = a.published.as_deref().map(|p| shown_date(p).to_string());
    let site = Some(escape_text(&a.site).into_owned());
    let authors = authors_html(&a.authors, a.author.as_deref());
    let published = published.map(|p| escape_text(&p).into_owned());
    let meta: Vec<String> = [site, authors, published]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect();
    let _ = write!(page, "<div class=\"meta\">{}</div>", meta.join(" · "));
    if let (Some(story), n @ 2..) = (&a.story, a.story_reports) {
        let _ = write!(
            page,
            "<p class=\"story\"><a href=\"/story/{}\">One of {n} reports of this story</a></p>",
            url::form_urlencoded::byte_serialize(story.as_bytes()).collect::<String>()
        );
    }
    if a.url.starts_with("http://") || a.url.starts_with("https://") {
        let _ = write!(
            page,
            "<p class=\"url\"><a href=\"{}\">{}</a></p>",
            escape_attribute(&a.url),
            escape_text(&a.url)
        );
    }
    let summaries = worth_showing(&a.summaries, &a.text);
    if !summaries.is_empty() {
        page.push_str("<section aria-label=\"Summaries\"><h2>Summaries</h2><dl>");
        for (name, text) in summaries {
            let _ = write!(
                page,
                "<dt>{}</dt><dd>{}</dd>",
                // The configured name, `one_sentence`, read as words.
                escape_text(name.replace('_', " ")),
                escape_text(text)
            );
        }
        page.push_str("</dl></section>");
    }
    // Shown with its line breaks (a list's items, code) and a code
    // line's indentation: `.text p` is `white-space: pre-wrap`.
    page.push_str("<section class=\"text\" aria-label=\"Text\">");
    for para in a.text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let para = para.trim_start_matches('\n').trim_end();
        match para.lines().all(|line| line.contains('\t')) {
            true => push_table(&mut page, para),
            false => {
                let _ = write!(page, "<p>{}</p>", escape_text(para));
            }
        }
    }
    page.push_str("</section>");
    if a.copies.len() > 1 {
        page.push_str("<section aria-label=\"Copies\"><h2>Copies, earliest first</h2><ol>");
        for c in &a.copies {
            let linked = c.url.starts_with("http://") || c.url.starts_with("https://");
            let url = if linked {
                format!(
                    "<a href=\"{}\">{}</a>",
                    escape_attribute(&c.url),
                    escape_text(&c.url)
                )
            } else {
                escape_text(&c.url).into_owned()
            };
            let meta: Vec<&str> = [
                Some(c.site.as_str()),
                c.published.as_deref().map(shown_date),
            ]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect();
            let _ = write!(
                page,
                "<li>{url} <span class=\"meta\">{}</span></li>",
                escape_text(meta.join(" · "))
            );
        }
        page.push_str("</ol></section>");
    }
    page.push_str("</article></body></html>");
    page
}

/// Share of the text's words past which a summary is the text again.
const WHOLE: f64 = 0.9;

/// The summaries (name, text) worth showing above `text`: each shorter
/// than the text itself (a short article's "about 100 words" is the whole
/// article again) and unlike the one before it (a short article's three
/// sentences and 100 words are often the same).
fn worth_showing<'a>(summaries: &'a serde_json::Value, text: &str) -> Vec<(&'a str, &'a str)> {
    let words = text.split_whitespace().count() as f64;
    let mut shown: Vec<(&str, &str)> = Vec::new();
    for s in summaries.as_array().into_iter().flatten() {
        let name = s["name"].as_str().unwrap_or("");
        let said = s["text"].as_str().unwrap_or("").trim();
        let short = (said.split_whitespace().count() as f64) < WHOLE * words;
        if !said.is_empty() && short && shown.last().is_none_or(|(_, last)| *last != said) {
            shown.push((name, said));
        }
    }
    shown
}

/// A table of the text (extract writes its rows a line each, the cells
/// parted by tabs) as a table again.
fn push_table(page: &mut String, para: &str) {
    page.push_str("<table>");
    for row in para.lines() {
        page.push_str("<tr>");
        for cell in row.split('\t') {
            let _ = write!(page, "<td>{}</td>", escape_text(cell.trim()));
        }
        page.push_str("</tr>");
    }
    page.push_str("</table>");
}

/// The authors as HTML: each a link to their articles; a byline the page
/// did not part into authors as it is.
pub(super) fn authors_html(authors: &[String], byline: Option<&str>) -> Option<String> {
    if !authors.is_empty() {
        let links: Vec<String> = authors.iter().map(|a| author_link(a)).collect();
        return Some(links.join(", "));
    }
    byline
        .filter(|a| !a.is_empty())
        .map(|a| escape_text(a).into_owned())
}

/// A link to the search for `author`'s articles (`author:"Name"`; a quote
/// in the name would end the phrase, so it is left out).
fn author_link(author: &str) -> String {
    let q = format!("author:\"{}\"", author.replace('"', " "));
    format!(
        "<a href=\"/?q={}\">{}</a>",
        escape_attribute(url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()),
        escape_text(author)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A summary as long as the article, or the same as the one before
    /// it, is not shown again above the article.
    #[test]
    fn summaries_that_repeat_the_text_are_not_shown() {
        let text = "One two three four five six seven eight nine ten.";
        let summaries = serde_json::json!([
            {"name": "one_sentence", "text": "One two three."},
            {"name": "three", "text": "One two three four."},
            {"name": "w100", "text": "One two three four."},
            {"name": "whole", "text": text},
            {"name": "empty", "text": " "},
        ]);
        assert_eq!(
            worth_showing(&summaries, text),
            [
                ("one_sentence", "One two three."),
                ("three", "One two three four.")
            ]
        );
        assert!(worth_showing(&serde_json::json!(null), text).is_empty());
    }

    #[test]
    fn links_change_one_thing_and_go_back_to_the_first_page() {
        let p = Params::parse("q=bridge&site=a.com&offset=20&sort=newest");
        assert_eq!(
            p.with("sort", "oldest", false),
            "/?q=bridge&site=a.com&sort=oldest"
        );
        assert_eq!(
            p.with("site", "b.org", true),
            "/?q=bridge&site=a.com&sort=newest&site=b.org"
        );
        assert_eq!(p.at(30), "/?q=bridge&site=a.com&sort=newest&offset=30");
        assert_eq!(month_end("2024-02").as_deref(), Some("2024-02-29"));
        let f = Facets {
            site: vec![("a<b>.com".into(), 3)],
            language: vec![],
            month: vec![("2026-03".into(), 2)],
        };
        let mut page = String::new();
        facets(&mut page, &f, &Params::parse("q=x"));
        assert!(
            page.contains("a&lt;b&gt;.com</a> <span class=\"n\">3</span>"),
            "{page}"
        );
        assert!(
            page.contains("href=\"/?q=x&amp;from=2026-03-01&amp;to=2026-03-31\""),
            "{page}"
        );
    }

    #[test]
    fn the_article_view_lists_its_copies_and_reads_names_and_days_as_words() {
        let copy = |url: &str, at: &str| gleaner_index::Copy {
            id: url.into(),
            url: url.into(),
            site: "a.com".into(),
            published: Some(at.into()),
        };
        let a = ArticleView {
            id: "1".into(),
            url: "https://a.com/1".into(),
            title: "Bridge <reopens>".into(),
            text: "The bridge reopened.\n\n  let x = 1;\n  y(x)\n\nOne\nTwo\n\nSpan\tLength\n<Main>\t1.2 km".into(),
            author: None,
            date: None,
            language: Some("en".into()),
            site: "a.com".into(),
            published: Some("2026-03-02T00:00:00Z".into()),
            fetched_at: String::new(),
            summaries: serde_json::json!([{"name": "one_sentence", "text": "It reopened."}]),
            cluster: "1".into(),
            copies: vec![
                copy("https://a.com/1", "2026-03-02T00:00:00Z"),
                copy("https://b.org/2", "2026-03-03T08:30:00Z"),
            ],
            authors: vec![],
            site_name: None,
            canonical_url: None,
            image: None,
            story: Some("s 1".into()),
            story_reports: 1,
        };
        let page = article(&a, "");
        assert!(!page.contains("reports of this story"), "a story of one");
        let reported = ArticleView {
            story_reports: 3,
            ..a.clone()
        };
        assert!(
            article(&reported, "")
                .contains("<a href=\"/story/s+1\">One of 3 reports of this story</a>"),
            "the story it is one report of"
        );
        assert!(page.contains("<h1>Bridge &lt;reopens&gt;</h1>"), "{page}");
        assert!(
            page.contains("<div class=\"meta\">a.com · 2026-03-02</div>"),
            "{page}"
        );
        let by = ArticleView {
            authors: vec!["Mara Olsen".into()],
            ..a.clone()
        };
        assert!(
            article(&by, "").contains(
                "a.com · <a href=\"/?q=author%3A%22Mara+Olsen%22\">Mara Olsen</a> · 2026-03-02"
            ),
            "each author links to their articles"
        );
        assert!(page.contains("<dt>one sentence</dt>"), "{page}");
        // Lines and indentation reach the page, which keeps them.
        assert!(
            page.contains("<p>  let x = 1;\n  y(x)</p><p>One\nTwo</p>"),
            "{page}"
        );
        assert!(super::super::page::STYLE.contains(".text p{white-space:pre-wrap}"));
        // A table's rows, a line each with tabs between the cells.
        assert!(
            page.contains("<table><tr><td>Span</td><td>Length</td></tr><tr><td>&lt;Main&gt;</td><td>1.2 km</td></tr></table>"),
            "{page}"
        );
        assert!(page.contains("Copies, earliest first"), "{page}");
        assert!(
            page.contains("b.org/2</a> <span class=\"meta\">a.com · 2026-03-03T08:30:00Z</span>"),
            "{page}"
        );
    }
}
