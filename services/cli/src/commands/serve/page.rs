//! The search page of `gleaner serve` (`GET /?q=...`): rendered on the
//! server, so it works without JavaScript and in any browser, and every
//! value from the index or the query is escaped (htmlize) before it is
//! written into the page.

use super::browse::{self, Params};
use gleaner_index::{Hit, SearchResults};
use htmlize::{escape_attribute, escape_text};
use std::fmt::Write;

pub(crate) const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}\
form{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:1.5rem}.dates{flex-basis:100%;display:flex;flex-wrap:wrap;gap:.3rem 1rem;border:0;padding:0;margin:0;font-size:.9rem;color:#444}\
.dates legend{float:left;margin-right:.5rem;padding:0}input[type=search]{flex:1;font-size:1rem;padding:.4rem}\
button{font-size:1rem;padding:.4rem 1rem}mark{background:#fff2a8;color:inherit}.hit{margin-bottom:1.4rem}.hit h2{font-size:1.1rem;margin:0}\
.meta{color:#666;font-size:.85rem}.url{color:#1a6b1a;font-size:.85rem;word-break:break-all}\
.text p{white-space:pre-wrap}.text table{border-collapse:collapse;margin:0 0 1rem}.text td{border:1px solid #ddd;padding:.2rem .5rem;vertical-align:top}.summary{margin:.3rem 0}.snippet{color:#444;margin:.3rem 0}.note{color:#666}\
.layout{display:flex;gap:2rem}.layout main{flex:1;min-width:0}.facets{width:12rem;font-size:.9rem}\
.facets h3{font-size:.9rem;margin:.8rem 0 .3rem}.facets ul{list-style:none;padding:0;margin:0}.n{color:#888}\
.paging{display:flex;gap:1rem;margin:1rem 0}a:focus{outline:2px solid #1a5fb4}\
@media(max-width:40rem){.layout{flex-direction:column}.facets{width:auto}.dates legend{float:none;margin:0 0 .2rem}}";

/// What a search gave: hits, or the error to show.
pub enum Outcome {
    /// No query yet.
    Empty,
    /// A page of results with its count, facets and place.
    Results {
        found: SearchResults,
        params: Params,
        offset: usize,
        limit: usize,
    },
    Failed(String),
}

/// The whole page for the query in `params` and what the search gave;
/// `docs` is the number of searchable articles.
pub fn render(params: &Params, outcome: &Outcome, docs: u64) -> String {
    let query = params.get("q").unwrap_or("");
    let mut page = String::with_capacity(8 * 1024);
    let title = if query.is_empty() {
        "gleaner search".to_string()
    } else {
        format!("{query} · gleaner search")
    };
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\
         <form action=\"/\" method=\"get\" role=\"search\">\
         <input type=\"search\" name=\"q\" value=\"{}\" placeholder=\"Search {docs} articles\" aria-label=\"Search\" \
         aria-controls=\"results\" autocomplete=\"off\" autofocus>\
         <button type=\"submit\">Search</button>",
        escape_text(&title),
        escape_attribute(query),
    );
    write_form_rest(&mut page, params);
    page.push_str("</form><div id=\"results\" aria-live=\"polite\">");
    page.push_str(&results(query, outcome, docs));
    // Results as you type (search.js, served by gleaner itself); without
    // it the form and the links do the same.
    page.push_str("</div><script src=\"/search.js\" defer></script></body></html>");
    page
}

/// The rest of the search form: the published date range, and the page's
/// other choices (sites, language, order, grouping, page size) kept as
/// hidden fields, so that a new query keeps them. Empty fields are dropped
/// by the server (and by the script).
fn write_form_rest(page: &mut String, params: &Params) {
    // A date input holds a day; a full timestamp from a link is kept as is.
    let day = |key: &str| {
        params
            .get(key)
            .filter(|v| v.len() == 10)
            .unwrap_or("")
            .to_string()
    };
    let _ = write!(
        page,
        "<fieldset class=\"dates\"><legend>Published</legend>\
         <label>from <input type=\"date\" name=\"from\" value=\"{}\"></label>\
         <label>to <input type=\"date\" name=\"to\" value=\"{}\"></label></fieldset>",
        escape_attribute(day("from")),
        escape_attribute(day("to")),
    );
    for (k, v) in &params.0 {
        let dated = (k == "from" || k == "to") && v.len() == 10;
        let kept = [
            "site",
            "lang",
            "sort",
            "group",
            "limit",
            "has_summary",
            "from",
            "to",
        ];
        if kept.contains(&k.as_str()) && !dated && !v.is_empty() {
            let _ = write!(
                page,
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                escape_attribute(k),
                escape_attribute(v)
            );
        }
    }
}

/// The part of the page under the search box: what the script asks for
/// as the user types.
pub fn results(query: &str, outcome: &Outcome, docs: u64) -> String {
    let mut page = String::with_capacity(8 * 1024);
    match outcome {
        Outcome::Empty => {
            let _ = write!(
                page,
                "<p class=\"note\">{docs} articles searchable. Words (all of them), \"a phrase\", OR, -word, \
                 site:, lang:, after:, before:. <a href=\"/stories\">Stories</a> · <a href=\"/report\">Crawl report</a></p>"
            );
        }
        Outcome::Failed(e) => {
            let _ = write!(
                page,
                "<p class=\"note\" role=\"alert\">Search failed: {}</p>",
                escape_text(e)
            );
        }
        Outcome::Results {
            found,
            params,
            offset,
            limit,
        } => {
            browse::summary_line(&mut page, found, params);
            page.push_str("<div class=\"layout\"><main>");
            if found.hits.is_empty() {
                let _ = write!(
                    page,
                    "<p class=\"note\">No article matches <b>{}</b>.</p>",
                    escape_text(query)
                );
            }
            for hit in &found.hits {
                write_hit(&mut page, hit);
            }
            browse::paging(&mut page, found, params, *offset, *limit);
            page.push_str("</main>");
            if let Some(f) = &found.facets {
                browse::facets(&mut page, f, params);
            }
            page.push_str("</div>");
        }
    }
    page
}

fn write_hit(page: &mut String, hit: &Hit) {
    let title = if hit.title.trim().is_empty() {
        &hit.url
    } else {
        &hit.title
    };
    // Only web addresses become links (the index holds what was crawled,
    // but a javascript: URL must never be one).
    let linked = hit.url.starts_with("http://") || hit.url.starts_with("https://");
    let _ = write!(page, "<article class=\"hit\"><h2>");
    if linked {
        let _ = write!(
            page,
            "<a href=\"{}\">{}</a>",
            escape_attribute(&hit.url),
            escape_text(title)
        );
    } else {
        page.push_str(&escape_text(title));
    }
    let _ = write!(
        page,
        "</h2><div class=\"url\">{}</div>",
        escape_text(&hit.url)
    );
    let mut meta: Vec<String> = hit
        .site_name
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| escape_text(s).into_owned())
        .collect();
    meta.extend(browse::authors_html(&hit.authors, hit.author.as_deref()));
    let mut meta = meta.join(" · ");
    // The day as the publisher dated it, the whole timestamp on hover
    // ("2015-03-10T08:05:41-07:00" wrapped over two lines of the list).
    if let Some(date) = hit.date.as_deref().filter(|d| !d.trim().is_empty()) {
        if !meta.is_empty() {
            meta.push_str(" · ");
        }
        let _ = write!(
            meta,
            "<time datetime=\"{0}\" title=\"{0}\">{1}</time>",
            escape_attribute(date),
            escape_text(gleaner_core::util::day_of(date))
        );
    }
    let mut copies = match hit.copies {
        0 => String::new(),
        1 => " · 1 copy elsewhere".to_string(),
        n => format!(" · {n} copies elsewhere"),
    };
    if let (Some(story), n @ 1..) = (&hit.story, hit.more_reports) {
        let _ = write!(
            copies,
            " · <a href=\"/story/{}\">{n} more report{} of this story</a>",
            escape_attribute(
                url::form_urlencoded::byte_serialize(story.as_bytes()).collect::<String>()
            ),
            if n == 1 { "" } else { "s" }
        );
    }
    if !meta.is_empty() || !copies.is_empty() {
        let _ = write!(page, "<div class=\"meta\">{meta}{copies}</div>");
    }
    let _ = write!(
        page,
        "<div class=\"meta\"><a href=\"/article/{}\">Full text and summaries</a></div>",
        escape_attribute(
            url::form_urlencoded::byte_serialize(hit.id.as_bytes()).collect::<String>()
        )
    );
    // The summary, unless the snippet below says it already (a lead
    // sentence summing the article up, the match in it).
    if let Some(summary) = first_summary(&hit.summaries).filter(|s| !says(&hit.snippet, s)) {
        let _ = write!(page, "<p class=\"summary\">{}</p>", escape_text(summary));
    }
    // The index made `highlight` from the snippet: escaped, with only its
    // own <mark> tags added.
    if !hit.highlight.is_empty() {
        let _ = write!(page, "<p class=\"snippet\">{}</p>", hit.highlight);
    } else if !hit.snippet.is_empty() {
        let _ = write!(
            page,
            "<p class=\"snippet\">{}</p>",
            escape_text(&hit.snippet)
        );
    }
    page.push_str("</article>");
}

/// Whether `snippet` holds all of `text`, whitespace aside.
fn says(snippet: &str, text: &str) -> bool {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = words(text);
    !text.is_empty() && words(snippet).contains(&text)
}

/// The first (shortest configured) summary's text, if the hit has one.
fn first_summary(summaries: &serde_json::Value) -> Option<&str> {
    summaries
        .as_array()?
        .iter()
        .filter_map(|s| s.get("text")?.as_str())
        .find(|t| !t.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(title: &str, url: &str) -> Hit {
        Hit {
            id: "1".into(),
            url: url.into(),
            title: title.into(),
            score: 1.0,
            snippet: "the <b>bridge</b> reopened".into(),
            highlight: "the &lt;b&gt;<mark>bridge</mark>&lt;/b&gt; reopened".into(),
            author: Some("A. Writer".into()),
            authors: vec![],
            date: Some("2024-05-01T08:05:41-07:00".into()),
            language: Some("en".into()),
            summaries: serde_json::json!([{"name": "one_sentence", "text": "The bridge reopened."}]),
            site: "example.com".into(),
            site_name: Some("Example <Times>".into()),
            image: None,
            published: Some("2024-05-01T00:00:00Z".into()),
            cluster: None,
            story: None,
            more_reports: 0,
            copies: 2,
            copy_urls: vec![],
        }
    }

    fn results(hits: Vec<Hit>, raw: &str) -> Outcome {
        Outcome::Results {
            found: SearchResults {
                total: 25,
                hits,
                facets: Some(gleaner_index::Facets {
                    site: vec![("example.com".into(), 20)],
                    language: vec![("en".into(), 25)],
                    month: vec![("2024-05".into(), 25)],
                }),
                fuzzy: false,
                prefix: false,
                took_ms: 1.5,
            },
            params: Params::parse(raw),
            offset: 10,
            limit: 2,
        }
    }

    #[test]
    fn each_author_links_to_their_articles() {
        let mut h = hit("Bridge", "https://example.com/a");
        h.authors = vec!["Mara Olsen".into(), "Ken \"K\" <Ito>".into()];
        let page = render(&Params(vec![]), &results(vec![h], "q=bridge"), 7);
        assert!(
            page.contains(
                "<a href=\"/?q=author%3A%22Mara+Olsen%22\">Mara Olsen</a>, \
                 <a href=\"/?q=author%3A%22Ken++K++%3CIto%3E%22\">Ken \"K\" &lt;Ito&gt;</a> · "
            ),
            "{page}"
        );
    }

    #[test]
    fn hits_are_rendered_and_everything_is_escaped() {
        let page = render(
            &Params(vec![("q".into(), "\"><script>alert(1)</script>".into())]),
            &results(
                vec![
                    hit("Bridge <reopens>", "https://example.com/a?x=1&y=2"),
                    hit("Bad", "javascript:alert(1)"),
                ],
                "q=bridge&offset=10&limit=2",
            ),
            7,
        );
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("value=\"&quot;&gt;&lt;script&gt;"), "{page}");
        assert!(page
            .contains("<a href=\"https://example.com/a?x=1&amp;y=2\">Bridge &lt;reopens&gt;</a>"));
        assert!(!page.contains("href=\"javascript:"), "{page}");
        assert!(page.contains("The bridge reopened."));
        assert!(page.contains("the &lt;b&gt;<mark>bridge</mark>&lt;/b&gt; reopened"));
        assert!(page.contains(
            "Example &lt;Times&gt; · A. Writer · <time datetime=\"2024-05-01T08:05:41-07:00\" \
                 title=\"2024-05-01T08:05:41-07:00\">2024-05-01</time> · 2 copies elsewhere"
        ));
        // The count, the order, facets, paging and the article view.
        assert!(page.contains("25 articles"), "{page}");
        assert!(
            page.contains("<a href=\"/?q=bridge&amp;limit=2&amp;sort=newest\">newest</a>"),
            "{page}"
        );
        assert!(
            page.contains(
                "<a href=\"/?q=bridge&amp;limit=2&amp;site=example.com\">example.com</a>"
            ),
            "{page}"
        );
        assert!(
            page.contains("rel=\"prev\" href=\"/?q=bridge&amp;limit=2&amp;offset=8\""),
            "{page}"
        );
        assert!(
            page.contains("rel=\"next\" href=\"/?q=bridge&amp;limit=2&amp;offset=12\""),
            "{page}"
        );
        assert!(page.contains("href=\"/article/1\""), "{page}");
    }

    /// A summary the snippet already says (the lead sentence, the match
    /// in it) is shown once, as the snippet.
    #[test]
    fn a_summary_the_snippet_says_is_not_repeated() {
        let mut h = hit("Bridge", "https://example.com/a");
        h.snippet = "The bridge  reopened. Buses crossed it at dawn…".into();
        h.highlight = "The <mark>bridge</mark> reopened. Buses crossed it at dawn…".into();
        let page = render(&Params::parse("q=bridge"), &results(vec![h], "q=bridge"), 1);
        assert!(!page.contains("<p class=\"summary\">"), "{page}");
        assert!(page.contains("<mark>bridge</mark> reopened"), "{page}");
        assert!(says("a b  c d", "b c") && !says("a b", "") && !says("a b", "b c"));
    }

    #[test]
    fn no_query_no_hits_and_failures_say_so() {
        let q = |q: &str| Params(vec![("q".into(), q.into())]);
        assert!(render(&q(""), &Outcome::Empty, 3).contains("3 articles searchable"));
        assert!(render(&q("zzz"), &results(vec![], "q=zzz"), 3)
            .contains("No article matches <b>zzz</b>"));
        let failed = render(&q("a"), &Outcome::Failed("index <gone>".into()), 3);
        assert!(failed.contains("Search failed: index &lt;gone&gt;"));
    }

    #[test]
    fn the_page_holds_its_results_part_and_the_script() {
        let outcome = results(vec![hit("Bridge", "https://example.com/a")], "q=bridge");
        let part = super::results("bridge", &outcome, 7);
        let page = render(&Params::parse("q=bridge"), &outcome, 7);
        assert!(part.contains("<article class=\"hit\">") && !part.contains("<form"));
        assert!(
            page.contains(&format!(
                "<div id=\"results\" aria-live=\"polite\">{part}</div>"
            )),
            "{page}"
        );
        assert!(page.contains("<script src=\"/search.js\" defer></script>"));
    }

    #[test]
    fn the_form_keeps_the_choices_and_holds_the_dates() {
        let params = Params::parse(
            "q=bridge&site=a.com&site=b.com&lang=de&sort=newest&from=2026-03-01&to=2026-03-31T12:00:00Z&offset=20&x=\"><b>",
        );
        let page = render(&params, &Outcome::Empty, 1);
        let form = &page[page.find("<form").unwrap()..page.find("</form>").unwrap()];
        for kept in [
            "<input type=\"hidden\" name=\"site\" value=\"a.com\">",
            "<input type=\"hidden\" name=\"site\" value=\"b.com\">",
            "<input type=\"hidden\" name=\"lang\" value=\"de\">",
            "<input type=\"hidden\" name=\"sort\" value=\"newest\">",
            "name=\"from\" value=\"2026-03-01\"",
            "<input type=\"hidden\" name=\"to\" value=\"2026-03-31T12:00:00Z\">",
        ] {
            assert!(form.contains(kept), "{kept}: {form}");
        }
        assert!(!form.contains("offset") && !form.contains("<b>"), "{form}");
        assert!(
            form.contains("name=\"to\" value=\"\""),
            "a timestamp is no day: {form}"
        );
    }
}
