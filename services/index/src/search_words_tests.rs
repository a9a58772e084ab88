//! Tests of how a query's words meet an article's: a Latin name inside
//! CJK text, accents folded (and an older index that keeps them), authors.

use super::tests::{article, ask, ids, input_of, summarized};
use crate::{IndexStage, SearchIndex, SearchRequest};
use gleaner_core::stage::Stage;

/// A Latin name written into Chinese or Japanese text without a space is
/// a word of its own, found as written (it was found only as a typo).
#[tokio::test]
async fn a_latin_name_inside_cjk_text_is_a_word() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let inputs = [
        article(
            "z1",
            "tech.qq.com",
            "zh",
            "2026-01-05",
            None,
            "谷歌在2014年收购的人工智能公司DeepMind开发出一款计算机。",
        ),
        article(
            "j1",
            "news.yahoo.co.jp",
            "ja",
            "2026-01-06",
            None,
            "通信がVPN（Virtual Private Network）で暗号化される。",
        ),
    ];
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    for (q, id) in [
        ("DeepMind", "z1"),
        ("vpn", "j1"),
        ("人工智能", "z1"),
        ("暗号化", "j1"),
    ] {
        let r = s.find(&ask(q)).unwrap();
        assert_eq!(ids(&r), [id], "{q}");
        assert!(!r.fuzzy, "{q} found as a typo");
    }
}

/// A word is found without its accents, as typed on a keyboard without
/// them, and still with them; the snippet marks the word as written.
#[tokio::test]
async fn accents_are_folded_in_words_and_queries() {
    let dir = tempfile::tempdir().unwrap();
    let s = accented(dir.path(), None).await;
    for (q, id) in [
        ("nepal", "f1"),
        ("Népal", "f1"),
        ("seisme", "f1"),
        ("\"sao paulo\"", "e1"),
        ("São Paulo", "e1"),
        ("zurich", "e1"),
    ] {
        let r = s.find(&ask(q)).unwrap();
        assert_eq!(ids(&r), [id], "{q}");
        assert!(!r.fuzzy, "{q} found as a typo");
    }
    let r = s.find(&ask("nepal")).unwrap();
    assert!(
        r.hits[0].highlight.contains("<mark>Népal</mark>"),
        "{}",
        r.hits[0].highlight
    );
}

/// An index made before accents were folded keeps its words as they were
/// made: found with their accents and not as written without them, as
/// before.
#[tokio::test]
async fn an_index_made_before_folding_keeps_its_accents() {
    let dir = tempfile::tempdir().unwrap();
    let (old, _) = crate::schema::schema(crate::analyzers::Accents::Kept);
    let s = accented(dir.path(), Some(old)).await;
    for (q, as_written) in [("Népal", true), ("nepal", false), ("São Paulo", true)] {
        let r = s.find(&ask(q)).unwrap();
        assert_eq!(!r.hits.is_empty() && !r.fuzzy, as_written, "{q}");
    }
}

/// An index of a French and an English article with accents, made with
/// the schema `old` when given.
async fn accented(dir: &std::path::Path, old: Option<tantivy::schema::Schema>) -> SearchIndex {
    if let Some(schema) = old {
        tantivy::Index::create_in_dir(dir, schema).unwrap();
    }
    let mut st = IndexStage::open(dir, 20_000_000, 1).unwrap();
    let inputs = [
        article(
            "f1",
            "lemonde.fr",
            "fr",
            "2026-01-05",
            None,
            "Un séisme a frappé le Népal samedi.",
        ),
        article(
            "e1",
            "bbc.co.uk",
            "en",
            "2026-01-06",
            None,
            "Flights from São Paulo to Zürich resumed.",
        ),
    ];
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    SearchIndex::open(dir, 200).unwrap()
}

/// `author:` finds an article by any of its authors' names, a phrase by
/// the whole name, accents folded; a name is not a word of the text.
#[tokio::test]
async fn author_finds_articles_by_any_of_their_authors() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let by = |id: &str, authors: &[&str], text: &str| {
        let mut s = summarized(id, "example.com", "en", "2026-01-05", None, text);
        s.article.authors = authors.iter().map(|a| a.to_string()).collect();
        s.article.author = Some(authors.join(", "));
        input_of(&s)
    };
    let inputs = [
        by("b1", &["Mara Olsen"], "The harbour bridge reopened."),
        by("b2", &["Jon Smith", "José Núñez"], "The ferry ran late."),
        by("b3", &[], "Olsen said the ferry ran late."),
        // A byline the page did not part into authors.
        {
            let mut s = summarized("b4", "example.com", "en", "2026-01-05", None, "Tolls.");
            s.article.author = Some("Ana Ruiz".into());
            input_of(&s)
        },
    ];
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    for (q, want) in [
        ("author:olsen", vec!["b1"]),
        ("author:\"mara olsen\"", vec!["b1"]),
        ("author:nunez", vec!["b2"]),
        ("author:smith ferry", vec!["b2"]),
        ("ferry -author:smith", vec!["b3"]),
        ("author:*", vec!["b1", "b2", "b4"]),
        ("ferry -author:*", vec!["b3"]),
        ("olsen", vec!["b3"]),
        ("author:\"ana ruiz\"", vec!["b4"]),
    ] {
        let mut got = ids(&s.find(&ask(q)).unwrap())
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        got.sort();
        assert_eq!(got, want, "{q}");
    }
}

/// `bri*` asks for the words starting with "bri", ranked and marked as
/// words; a query that matches nothing as written, its last word being
/// typed, is asked so too, and says so.
#[tokio::test]
async fn a_word_ending_in_a_star_and_a_word_being_typed_are_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let inputs = [
        article(
            "p1",
            "example.com",
            "en",
            "2026-01-05",
            None,
            "The harbour bridge reopened after repairs.",
        ),
        article(
            "p2",
            "example.com",
            "en",
            "2026-01-06",
            None,
            "Three studies of the harbour brought nothing new.",
        ),
        article(
            "p3",
            "lemonde.fr",
            "fr",
            "2026-01-07",
            None,
            "Un séisme a frappé le Népal samedi.",
        ),
        article(
            "p4",
            "example.com",
            "en",
            "2026-01-08",
            None,
            "Ferry news today.",
        ),
    ];
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    let found = |q: &str| {
        let r = s.find(&ask(q)).unwrap();
        let mut got: Vec<String> = ids(&r).into_iter().map(String::from).collect();
        got.sort();
        (got, r)
    };
    for (q, want) in [
        ("br*", vec!["p1", "p2"]),
        ("bri*", vec!["p1"]),
        ("harbour bro*", vec!["p2"]),
        ("harbour -bri*", vec!["p2"]),
        ("news -bri*", vec!["p4"]),
        ("nepa*", vec!["p3"]),
        ("népa*", vec!["p3"]),
        // "studies" is held as its stem "studi"; typed on, still found.
        ("studie*", vec!["p2"]),
        ("title:bri*", vec![]),
        ("zzq*", vec![]),
        ("zzzzq*", vec![]),
        ("\"harbour bri\"*", vec!["p1"]),
        // A star after what no field indexes asks what the word alone
        // asks: nothing alone, nothing more beside a word (it had
        // matched every article).
        ("😀*", vec![]),
        (".*", vec![]),
        ("ferry 😀*", vec!["p4"]),
    ] {
        let (got, r) = found(q);
        assert_eq!(got, want, "{q}");
        assert!(!r.prefix && !r.fuzzy, "{q} is a prefix as written");
    }
    let (_, r) = found("brid*");
    assert!(
        r.hits[0].highlight.contains("<mark>bridge</mark>"),
        "{}",
        r.hits[0].highlight
    );
    // Typed so far: matched nothing as written, so the last word is a
    // prefix; a word typed out, or followed by a space, is not.
    for (q, want, prefix) in [
        ("harbour bro", vec!["p2"], true),
        ("harbour br", vec![], false),
        ("harbour brid", vec!["p1"], true),
        ("harbour bridge", vec!["p1"], false),
        ("harbour brid ", vec![], false),
        ("sei", vec!["p3"], true),
        // "new" is a word the index holds (p2): taken as written, so
        // "today new" finds nothing, though p4 has "today" and "news".
        ("today new", vec![], false),
        ("ferry tod", vec!["p4"], true),
    ] {
        // A standing query is not being typed: its words are whole.
        let whole = SearchRequest {
            whole_words: true,
            ..ask(q)
        };
        let r = s.find(&whole).unwrap();
        let as_written = if prefix { vec![] } else { want.clone() };
        assert_eq!((ids(&r), r.prefix), (as_written, false), "{q} whole");
        let (got, r) = found(q);
        assert_eq!(
            (got.iter().map(String::as_str).collect::<Vec<_>>(), r.prefix),
            (want, prefix),
            "{q}"
        );
    }
}

/// A lone CJK character finds the articles that hold it anywhere, not
/// only where it stands alone (the CJK fields hold bigrams).
#[tokio::test]
async fn a_lone_cjk_character_finds_the_words_that_hold_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = IndexStage::open(dir.path(), 20_000_000, 1).unwrap();
    let inputs = [
        article(
            "c1",
            "qq.com",
            "zh",
            "2026-01-05",
            None,
            "人工智能公司开发出一款计算机。",
        ),
        article(
            "c2",
            "qq.com",
            "zh",
            "2026-01-06",
            None,
            "很多年轻人喜欢猫。",
        ),
        article("c3", "qq.com", "zh", "2026-01-07", None, "今天下雨了。"),
        article("c4", "qq.com", "zh", "2026-01-08", None, "人 与自然。"),
    ];
    assert!(st.handle_batch(&inputs).await.iter().all(|r| r.is_ok()));
    st.close().await.unwrap();
    let s = SearchIndex::open(dir.path(), 200).unwrap();
    for (q, want) in [
        ("人", vec!["c1", "c2", "c4"]),
        ("猫", vec!["c2"]),
        ("雨 今天", vec!["c3"]),
        ("人 -猫", vec!["c1", "c4"]),
        ("title:人", vec![]),
        ("\"人\"", vec!["c4"]),
        ("鱼", vec![]),
    ] {
        let r = s.find(&ask(q)).unwrap();
        let mut got = ids(&r);
        got.sort();
        assert_eq!(got, want, "{q}");
    }
    // Marked as asked: the character alone, and a CJK word inside a run.
    for (q, marked) in [
        ("猫", "喜欢<mark>猫</mark>"),
        ("人工智能", "<mark>人工智能</mark>公司"),
    ] {
        let r = s.find(&ask(q)).unwrap();
        assert!(
            r.hits[0].highlight.contains(marked),
            "{q}: {}",
            r.hits[0].highlight
        );
    }
}
