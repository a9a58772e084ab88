//! Page metadata from <meta>, <html lang> and <time> (JSON-LD's is
//! json_ld.rs's).

use crate::blocks::State;
use crate::entities::{collapse, decode_attribute};
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
                // A profile's URL (`article:author` is one, by Open Graph's
                // rule) is kept only until a name comes: the extract stage
                // reads the login off it when no byline names anyone.
                "author" | "article:author" | "og:article:author" | "dc.creator"
                | "sailthru.author" | "parsely-author" | "cxenseparse:author"
                    if m.author.as_deref().is_none_or(|a| a.starts_with("http"))
                        && (m.author.is_none() || !content.starts_with("http")) =>
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
        crate::json_ld::set_authors(meta, authors);
    }
}

#[cfg(test)]
mod tests {
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
