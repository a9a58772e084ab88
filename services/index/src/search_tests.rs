//! Tests of search: filters, order, paging, facets, copies and bounds.

use crate::request::{parse_date, SearchRequest, Sort};
use crate::{IndexStage, SearchIndex};
use gleaner_core::messages::{Article, Summarized, Summary};
use gleaner_core::stage::{Input, Output, Stage};
use gleaner_core::Topic;

/// An article on `host` in `lang`, dated `date`, in `cluster`.
pub(crate) fn article(
    id: &str,
    host: &str,
    lang: &str,
    date: &str,
    cluster: Option<&str>,
    text: &str,
) -> Input {
    input_of(&summarized(id, host, lang, date, cluster, text))
}

/// The message `article` sends.
pub(crate) fn summarized(
    id: &str,
    host: &str,
    lang: &str,
    date: &str,
    cluster: Option<&str>,
    text: &str,
) -> Summarized {
    Summarized {
        article: Article {
            id: id.into(),
            url: format!("https://{host}/{id}"),
            title: format!("Story {id}"),
            author: None,
            date: Some(date.into()),
            language: Some(lang.into()),
            text: text.into(),
            extractor: "auto".into(),
            fetched_at: String::new(),
            cluster: cluster.map(str::to_string),
            story: None,
            ..Default::default()
        },
        summaries: if id.ends_with('s') {
            vec![Summary {
                name: "one".into(),
                text: "s".into(),
            }]
        } else {
            vec![]
        },
        engine: "extractive".into(),
    }
}

/// `s` on the summarized topic.
pub(crate) fn input_of(s: &Summarized) -> Input {
    let id = &s.article.id;
    Input {
        topic: Topic::SUMMARIZED,
        key: Some(id.clone()),
        payload: Some(Output::of(Topic::SUMMARIZED, id, s).payload),
        origin: None,
    }
}

async fn index(dir: &std::path::Path) -> SearchIndex {
    let mut st = IndexStage::open(dir, 20_000_000, 1).unwrap();
    let inputs = [
        article(
            "a1s",
            "news.bbc.co.uk",
            "en",
            "2026-01-05",
            None,
            "The harbour bridge reopened after repairs.",
        ),
        article(
            "a2",
            "www.bbc.co.uk",
            "en",
            "2026-02-10",
            None,
            "Council votes on the harbour budget.",
        ),
        article(
            "a3s",
            "lemonde.fr",
            "fr",
            "2026-02-11",
            None,
            "Le pont du port rouvre: harbour news in French.",
        ),
        article(
            "a4",
            "example.com",
            "en",
            "2026-03-01",
            Some("c1"),
            "Harbour bridge repairs finished early, says the mayor.",
        ),
        article(
            "a5",
            "copy.example.org",
            "en",
            "2026-03-02",
            Some("c1"),
            "Harbour bridge repairs finished early, says the mayor.",
        ),
        article(
            "a6",
            "example.com",
            "de",
            "2025-12-31",
            None,
            "Die Hafenbrücke ist wieder offen. Harbour.",
        ),
    ];
    let results = st.handle_batch(&inputs).await;
    assert!(results.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    SearchIndex::open(dir, 200).unwrap()
}

pub(crate) fn ask(q: &str) -> SearchRequest {
    SearchRequest {
        q: q.into(),
        limit: 10,
        ..SearchRequest::default()
    }
}

pub(crate) fn ids(r: &crate::SearchResults) -> Vec<&str> {
    r.hits.iter().map(|h| h.id.as_str()).collect()
}

#[tokio::test]
async fn filters_narrow_by_site_language_dates_and_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let all = s.find(&ask("harbour")).unwrap();
    // Six articles match; the two copies of c1 are one hit.
    assert_eq!((all.total, all.hits.len()), (6, 5), "{:?}", ids(&all));
    let by_site = s
        .find(&SearchRequest {
            sites: vec!["bbc.co.uk".into()],
            ..ask("harbour")
        })
        .unwrap();
    assert_eq!(
        by_site.total,
        2,
        "both bbc.co.uk hosts: {:?}",
        ids(&by_site)
    );
    assert!(by_site.hits.iter().all(|h| h.site == "bbc.co.uk"));
    // A host or a URL pasted names its site.
    for given in ["www.bbc.co.uk", "https://news.bbc.co.uk/news/1"] {
        let r = s
            .find(&SearchRequest {
                sites: vec![given.into()],
                ..ask("harbour")
            })
            .unwrap();
        assert_eq!(r.total, 2, "{given}");
    }
    let french = s
        .find(&SearchRequest {
            lang: Some("fr".into()),
            ..ask("harbour")
        })
        .unwrap();
    assert_eq!(ids(&french), vec!["a3s"]);
    let february = s
        .find(&SearchRequest {
            from: Some(parse_date("2026-02-01", false).unwrap()),
            to: Some(parse_date("2026-02-10", true).unwrap()),
            ..ask("harbour")
        })
        .unwrap();
    assert_eq!(ids(&february), vec!["a2"], "to is inclusive of its day");
    let summarised = s
        .find(&SearchRequest {
            has_summary: Some(true),
            ..ask("")
        })
        .unwrap();
    let mut got = ids(&summarised);
    got.sort();
    assert_eq!(got, vec!["a1s", "a3s"]);
}

#[tokio::test]
async fn dates_order_pages_and_copies() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let newest = s
        .find(&SearchRequest {
            sort: Sort::Newest,
            ..ask("")
        })
        .unwrap();
    // The copies collapse to the earliest (a4), listed where the cluster's
    // newest member (a5) ranks.
    assert_eq!(ids(&newest), vec!["a4", "a3s", "a2", "a1s", "a6"]);
    assert_eq!(
        newest.hits[0].copy_urls,
        vec!["https://copy.example.org/a5".to_string()]
    );
    assert_eq!(newest.hits[0].copies, 1);
    assert_eq!(
        newest.hits[0].published.as_deref(),
        Some("2026-03-01T00:00:00Z")
    );
    let oldest = s
        .find(&SearchRequest {
            sort: Sort::Oldest,
            ..ask("")
        })
        .unwrap();
    assert_eq!(ids(&oldest)[..2], ["a6", "a1s"]);
    // Pages of two walk through every hit once.
    let mut seen = Vec::new();
    for page in 0..4 {
        let r = s
            .find(&SearchRequest {
                sort: Sort::Oldest,
                offset: page * 2,
                limit: 2,
                ..ask("")
            })
            .unwrap();
        seen.extend(ids(&r).into_iter().map(str::to_string));
    }
    assert_eq!(seen, ids(&oldest));
}

#[tokio::test]
async fn facets_count_the_whole_result_set() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let r = s
        .find(&SearchRequest {
            facets: true,
            limit: 1,
            ..ask("harbour")
        })
        .unwrap();
    let f = r.facets.unwrap();
    assert_eq!(f.site[0], ("bbc.co.uk".to_string(), 2));
    assert_eq!(f.site.iter().map(|x| x.1).sum::<u64>(), 6);
    assert_eq!(f.language[0], ("en".to_string(), 4));
    assert!(
        f.month.contains(&("2026-03".to_string(), 2)),
        "{:?}",
        f.month
    );
    assert!(
        f.month.contains(&("2025-12".to_string(), 1)),
        "{:?}",
        f.month
    );
}

#[tokio::test]
async fn no_limit_asks_for_more_than_the_index_holds() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    for limit in [usize::MAX, 10_000_000_000, 7] {
        let r = s.find(&SearchRequest { limit, ..ask("") }).unwrap();
        assert_eq!(r.hits.len(), 5, "every hit, copies collapsed");
    }
    let r = s
        .find(&SearchRequest {
            offset: usize::MAX,
            ..ask("")
        })
        .unwrap();
    assert!(r.hits.is_empty());
    // Odd syntax is read leniently.
    for q in [
        "\"unclosed",
        "title:",
        "((",
        "-",
        "AND OR",
        "site:",
        "\u{0}",
    ] {
        s.find(&ask(q)).unwrap();
    }
}

#[test]
fn an_index_of_another_version_is_refused_with_the_rebuild_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = tantivy::schema::Schema::builder();
    old.add_i64_field("published", tantivy::schema::STORED);
    tantivy::Index::create_in_dir(dir.path(), old.build()).unwrap();
    let e = SearchIndex::open(dir.path(), 200)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("another version of gleaner") && e.contains("gleaner run --refetch"),
        "{e}"
    );
}

#[tokio::test]
async fn an_article_is_read_whole_with_its_copies_and_the_index_counted() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let a = s.article("a5").unwrap().unwrap();
    assert_eq!(
        a.text,
        "Harbour bridge repairs finished early, says the mayor."
    );
    assert_eq!((a.site.as_str(), a.cluster.as_str()), ("example.org", "c1"));
    let copies: Vec<&str> = a.copies.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(copies, vec!["a4", "a5"], "the earliest first");
    assert!(s.article("nope").unwrap().is_none());
    let stats = s.stats();
    assert_eq!(stats.documents, 6);
    assert!(stats.index_bytes > 0 && stats.last_commit.is_some());
}

#[tokio::test]
async fn the_documented_query_language_works() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let got = |q: &str| {
        let mut v: Vec<String> = ids(&s.find(&ask(q)).unwrap())
            .into_iter()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    assert_eq!(got("harbour site:bbc.co.uk"), ["a1s", "a2"]);
    assert_eq!(got("harbour language:fr"), ["a3s"]);
    assert_eq!(got("\"harbour bridge\" -mayor"), ["a1s"]);
    assert_eq!(got("title:a2"), ["a2"]);
    assert_eq!(got("council OR pont"), ["a2", "a3s"]);
    // `field:*` is any value: no restriction, never a schema error.
    assert_eq!(got("council title:*"), ["a2"]);
    assert_eq!(got("council body:* site:*"), ["a2"]);
    assert_eq!(got("harbour lang:*"), got("harbour"));
    assert_eq!(got("title:*").len(), got("").len());
    // Not every article has an author: `author:*` asks for one.
    assert_eq!(got("(council author:*) OR pont"), ["a3s"]);
    assert_eq!(got("(council -author:*) OR pont"), ["a2", "a3s"]);
    // A regular expression over a field's words; one without a field (a
    // pasted path or URL) asks nothing.
    assert_eq!(got("body:/harb.*/ council"), ["a2"]);
    assert_eq!(got("title:/a[23]s?/"), ["a2", "a3s"]);
    assert_eq!(got("/r/ council"), ["a2"]);
    // A dash between spaces is a pasted headline's, not a sign.
    assert_eq!(got("harbour - council"), ["a2"]);
    assert_eq!(got("harbour -council").len(), got("harbour").len() - 1);
    assert_eq!(got(" - ").len(), got("").len());
    // A name that is no field is a word: a pasted headline's "Breaking:".
    assert_eq!(got("Votes: harbour"), ["a2"]);
    assert_eq!(got("council:budget"), ["a2"]);
    assert_eq!(got("breaking: council"), Vec::<String>::new());
    assert_eq!(got("(rouvre:pont) OR council:votes"), ["a2", "a3s"]);
}

#[tokio::test]
async fn snippets_mark_the_matched_words_and_a_phrase_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let r = s.find(&ask("\"harbour bridge\" reopened")).unwrap();
    assert_eq!(r.hits[0].id, "a1s");
    assert!(
        r.hits[0]
            .highlight
            .contains("<mark>harbour bridge</mark> <mark>reopened</mark>")
            || r.hits[0]
                .highlight
                .contains("<mark>harbour bridge reopened</mark>"),
        "{}",
        r.hits[0].highlight
    );
    let r = s.find(&ask("repairs")).unwrap();
    assert!(
        r.hits
            .iter()
            .all(|h| h.highlight.contains("<mark>repairs</mark>")),
        "{:?}",
        r.hits
    );
}

#[tokio::test]
async fn a_query_with_a_typo_finds_the_words_within_one_edit() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let r = s.find(&ask("harbuor council")).unwrap();
    assert!(r.fuzzy, "no exact hit, so typo-tolerant");
    assert_eq!(ids(&r), vec!["a2"]);
    // Exact hits are not widened; short words and phrases are not fuzzy.
    assert!(!s.find(&ask("harbour council")).unwrap().fuzzy);
    assert_eq!(
        s.find(&ask("pnot")).unwrap().total,
        0,
        "four letters stay exact"
    );
    let five = s.find(&ask("brdge")).unwrap();
    assert!(
        five.fuzzy && five.total == 3,
        "five letters: bridge, {:?}",
        ids(&five)
    );
    assert_eq!(s.find(&ask("\"harbuor bridge\"")).unwrap().total, 0);
    // Words the index holds are no typos, though a filter leaves no hit.
    let filtered = s
        .find(&SearchRequest {
            sites: vec!["nowhere.test".into()],
            ..ask("harbour council")
        })
        .unwrap();
    assert!(!filtered.fuzzy && filtered.total == 0);
    // Only the unknown word is widened: "bridge" stays exact, so "bridges"
    // (one edit) is not asked for it.
    let one = s.find(&ask("harbuor bridge")).unwrap();
    assert!(one.fuzzy && one.total > 0);
    // Nothing within one edit either: said as matching nothing as written.
    let none = s.find(&ask("qwxzvy")).unwrap();
    assert!(!none.fuzzy && none.total == 0);
}

#[tokio::test]
async fn snippets_skip_a_leading_headline_and_take_the_length_asked() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let body = "Story t1 The ferry to the island runs again from Monday, the council said, after a winter of repairs to the pier.";
    let batch = [article("t1", "x.test", "en", "2026-03-03", None, body)];
    assert!(st.handle_batch(&batch).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    let r = s.find(&ask("island")).unwrap();
    assert!(
        r.hits[0].snippet.starts_with("The ferry"),
        "{}",
        r.hits[0].snippet
    );
    let short = s
        .find(&SearchRequest {
            snippet_chars: Some(30),
            ..ask("island")
        })
        .unwrap();
    let n = short.hits[0].snippet.chars().count();
    assert!(n <= 32, "{n}: {}", short.hits[0].snippet);
}

/// A language filter searches only that language's fields: the same
/// articles with the same scores as the unfiltered search's of that
/// language, the typo retry included.
#[tokio::test]
async fn a_language_filter_finds_and_scores_as_the_whole_search_does() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let all = s.find(&ask("harbour")).unwrap();
    for lang in ["en", "de", "fr"] {
        let only = s
            .find(&SearchRequest {
                lang: Some(lang.into()),
                ..ask("harbour")
            })
            .unwrap();
        let expected: Vec<(&str, f32)> = all
            .hits
            .iter()
            .filter(|h| h.language.as_deref() == Some(lang))
            .map(|h| (h.id.as_str(), h.score))
            .collect();
        let got: Vec<(&str, f32)> = only.hits.iter().map(|h| (h.id.as_str(), h.score)).collect();
        assert!(!got.is_empty(), "{lang}");
        assert_eq!(got, expected, "{lang}");
    }
    let typo = s
        .find(&SearchRequest {
            lang: Some(" DE ".into()),
            ..ask("harbuor")
        })
        .unwrap();
    assert!(typo.fuzzy);
    assert_eq!(ids(&typo), vec!["a6"]);
    let unknown = s
        .find(&SearchRequest {
            lang: Some("xx".into()),
            ..ask("harbour")
        })
        .unwrap();
    assert_eq!(unknown.total, 0);
}

#[tokio::test]
async fn an_operator_typed_at_the_end_or_start_asks_for_no_word() {
    let dir = tempfile::tempdir().unwrap();
    let s = index(dir.path()).await;
    let got = |q: &str| {
        ids(&s.find(&ask(q)).unwrap())
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(got("bridge"), ["a1s", "a4"]);
    assert_eq!(got("bridge OR"), got("bridge"));
    assert_eq!(got("AND bridge"), got("bridge"));
    assert_eq!(got("bridge AND"), got("bridge"));
    // An operator typed twice is read once: either word, not "bridge" alone.
    let either = got("harbour OR bridge");
    assert!(either.len() > got("bridge").len(), "{either:?}");
    assert_eq!(got("harbour OR OR bridge"), either);
    // No article holds the word "or".
    assert!(got("OR").is_empty());
}
