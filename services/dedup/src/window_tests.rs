//! The window's verdicts: each kind of repost, a different report of one
//! event, out-of-order arrival, replay, update, restart, the template case
//! and eviction.

use super::*;

fn cfg(window_count: usize) -> DedupSettings {
    DedupSettings {
        window_count,
        ..Default::default()
    }
}

const DAY: i64 = 86_400;
/// 2026-01-01T00:00:00Z
const T0: i64 = 1_767_225_600;

fn article(id: &str, at: i64, title: &str, text: &str) -> Article {
    Article {
        id: id.into(),
        url: format!("https://{id}.test/story"),
        title: title.into(),
        author: None,
        date: Some(gleaner_core::util::rfc3339(at as u64)),
        language: Some("en".into()),
        text: text.into(),
        extractor: "auto".into(),
        fetched_at: gleaner_core::util::rfc3339(at as u64 + 600),
        cluster: None,
        story: None,
        ..Default::default()
    }
}

fn judge(w: &mut Window, a: &Article) -> Vec<Decision> {
    let f = Features::of(&a.title, &a.text, w.cfg.sketch_size);
    w.judge(a, &f, T0 + 30 * DAY)
}

fn unique(d: &[Decision]) -> Option<&str> {
    match d {
        [Decision::Unique { cluster }] => Some(cluster),
        _ => None,
    }
}

fn repost_of(d: &[Decision]) -> Option<&str> {
    match d {
        [Decision::Repost(dup)] => Some(&dup.original_id),
        _ => None,
    }
}

const BUDGET_TITLE: &str = "Council approves budget with more for schools and parks";
const BUDGET: &str = "The city council approved a new budget on Tuesday that raises spending on schools and parks while cutting the cost of running city hall, after a debate that ran late into the evening.

Mayor Helen Okafor said the plan balances the books for the first time in six years. \"We have made hard choices, but the schools in Riverside and Eastgate will get the teachers they were promised,\" she told reporters outside the chamber.

The budget adds 42 million dollars for school maintenance, funds two new community pools and restores weekend hours at the central library. Spending on consultants falls by a third, and the council will sell the old transit depot on Harbour Street.

Opposition councillor Martin Webb voted against the plan, warning that the depot sale was a one-off that would leave a gap next year. He also questioned the cost of the new pools, which he said had not been put out to tender.

Property taxes will rise by 2.1 percent, below the rate of inflation. The finance committee will publish a line-by-line breakdown next week, and residents can comment on it until the end of the month.

The new budget takes effect on the first of July.";

const STORM: &str = "A storm is expected to reach the coast this weekend, bringing heavy rain and winds of up to 110 kilometres an hour, the national weather service said on Thursday.

Forecasters urged residents of low-lying areas to prepare sandbags and to avoid travel on Saturday night, when the storm is due to make landfall near Port Elliot. Ferries to the islands have been cancelled from Friday evening.

The emergency management agency has opened shelters in three towns and asked farmers to move livestock to higher ground. Power companies have put extra crews on standby after last year's storm left forty thousand homes without electricity for days.

Rainfall of up to 200 millimetres could cause flash flooding in the river valleys, the service warned, and the coastal road between Port Elliot and Greyhaven may be closed.";

/// A different report of the council's budget vote: the same names and
/// event, its own sentences (and one quote in common).
const BUDGET_REPORT: &str = "Riverside parents welcomed the council's vote on Tuesday, saying the money for school repairs was long overdue after years of leaking roofs and broken heating.

\"We have made hard choices, but the schools in Riverside and Eastgate will get the teachers they were promised,\" Mayor Helen Okafor said, a line her critics called an election pitch.

Councillor Martin Webb, who voted against the budget, said the sale of the transit depot on Harbour Street would only paper over the deficit. Several business groups agreed, pointing to rising costs for the city's contractors.

Teachers' union leaders said they would watch closely whether the promised posts are filled by September. The council expects to hire about 150 teachers over the next two years.

Library users said they were pleased that weekend opening hours would return, while swimming clubs asked where the two new pools would be built.";

fn paragraphs(text: &str) -> Vec<&str> {
    text.split("\n\n").collect()
}

fn edited(text: &str) -> String {
    // About one word in twelve changed, one sentence added.
    let mut out: Vec<String> = Vec::new();
    for (i, w) in text.split(' ').enumerate() {
        out.push(if i % 12 == 5 { "also".into() } else { w.into() });
    }
    out.insert(
        40,
        "Several residents attended the meeting in person.".into(),
    );
    out.join(" ")
}

#[test]
fn each_kind_of_repost_is_found_and_the_original_kept() {
    let mut w = Window::new(cfg(1000));
    let a = article("orig", T0, BUDGET_TITLE, BUDGET);
    assert_eq!(unique(&judge(&mut w, &a)), Some("orig"));
    assert_eq!(
        unique(&judge(
            &mut w,
            &article("storm", T0, "Storm warning", STORM)
        )),
        Some("storm")
    );
    let paras = paragraphs(BUDGET);
    let copies = [
        ("verbatim", BUDGET_TITLE.to_string(), BUDGET.to_string()),
        (
            "syndicated",
            BUDGET_TITLE.to_string(),
            format!(
                "This article originally appeared on the Riverside Courier and is republished with permission.\n\n{BUDGET}\n\nRelated stories\n\nStorm to reach the coast this weekend\n\nLibrary to restore Sunday opening\n\nTransit fares frozen for a year"
            ),
        ),
        (
            "reheadlined",
            "Schools are the big winners as city hall tightens its belt".to_string(),
            format!(
                "City hall will spend less on itself and more on classrooms under the plan councillors passed this week.\n\n{}",
                paras[1..].join("\n\n")
            ),
        ),
        ("edited", BUDGET_TITLE.to_string(), edited(BUDGET)),
        ("trimmed", BUDGET_TITLE.to_string(), paras[..4].join("\n\n")),
    ];
    for (i, (kind, title, text)) in copies.iter().enumerate() {
        let c = article(kind, T0 + 3600 * (i as i64 + 1), title, text);
        let d = judge(&mut w, &c);
        assert_eq!(repost_of(&d), Some("orig"), "{kind}: {d:?}");
        let Decision::Repost(dup) = &d[0] else {
            unreachable!()
        };
        assert_eq!(dup.cluster.as_deref(), Some("orig"));
        assert!(!dup.correction);
        assert!(dup.containment >= w.cfg.containment && dup.similarity >= w.cfg.threshold);
    }
    assert_eq!(
        unique(&judge(
            &mut w,
            &article(
                "report",
                T0 + 7200,
                "Parents welcome school money",
                BUDGET_REPORT
            )
        )),
        Some("report"),
        "a different report of the same event is kept"
    );
}

#[test]
fn an_earlier_copy_arriving_late_becomes_the_original_and_corrects_the_later() {
    let mut w = Window::new(cfg(1000));
    // The repost (published a day later) is crawled first.
    let late = article("late", T0 + DAY, BUDGET_TITLE, BUDGET);
    assert_eq!(unique(&judge(&mut w, &late)), Some("late"));
    let early = article(
        "early",
        T0,
        BUDGET_TITLE,
        &paragraphs(BUDGET)[..5].join("\n\n"),
    );
    let d = judge(&mut w, &early);
    let [Decision::Unique { cluster }, Decision::Correction(c)] = &d[..] else {
        panic!("{d:?}");
    };
    assert_eq!(
        cluster, "late",
        "the cluster keeps the id of its first copy seen"
    );
    assert_eq!((c.id.as_str(), c.original_id.as_str()), ("late", "early"));
    assert!(c.correction);
    // A third copy is a repost of the earliest published one.
    let third = article("third", T0 + 2 * DAY, BUDGET_TITLE, BUDGET);
    assert_eq!(repost_of(&judge(&mut w, &third)), Some("early"));
    // A replay of the corrected copy is recognised: nothing goes out again.
    assert_eq!(judge(&mut w, &late), vec![Decision::Replay]);
    // Same day, one without a time: not earlier, so no correction.
    let mut w = Window::new(cfg(1000));
    judge(
        &mut w,
        &article("timed", T0 + 9 * 3600, BUDGET_TITLE, BUDGET),
    );
    let mut dated = article("dated", 0, BUDGET_TITLE, BUDGET);
    dated.date = Some("2026-01-01".into());
    assert_eq!(repost_of(&judge(&mut w, &dated)), Some("timed"));
}

/// The same article from a later fetch.
fn refetched(a: &Article, text: &str) -> Article {
    Article {
        text: text.into(),
        fetched_at: gleaner_core::util::rfc3339(T0 as u64 + 7 * DAY as u64),
        ..a.clone()
    }
}

#[test]
fn a_replay_is_recognised_and_an_update_is_judged_afresh() {
    let mut w = Window::new(cfg(1000));
    let a = article("a", T0, BUDGET_TITLE, BUDGET);
    let b = article("b", T0 + 60, BUDGET_TITLE, BUDGET);
    assert_eq!(unique(&judge(&mut w, &a)), Some("a"));
    assert_eq!(repost_of(&judge(&mut w, &b)), Some("a"));
    for _ in 0..2 {
        // Replayed after a crash: neither goes out again.
        assert_eq!(judge(&mut w, &a), vec![Decision::Replay]);
        assert_eq!(judge(&mut w, &b), vec![Decision::Replay]);
    }
    // Replayed from the same fetch but extracted a little differently
    // (extract learns site templates as it goes): still a replay.
    let mut again = a.clone();
    again.text.push_str("\n\nShare this article");
    assert_eq!(judge(&mut w, &again), vec![Decision::Replay]);
    // An unchanged page fetched again: nothing new either.
    assert_eq!(
        judge(&mut w, &refetched(&a, BUDGET)),
        vec![Decision::Replay]
    );
    assert_eq!(w.len(), 2);
    assert_eq!(w.stats.replays, 6);
    // The repost's page now carries another story: no longer a repost.
    let b2 = Article {
        title: "Storm warning".into(),
        ..refetched(&b, STORM)
    };
    assert_eq!(unique(&judge(&mut w, &b2)), Some("b"));
    assert_eq!(w.len(), 2, "the update replaced the old entry");
    // And the original, updated with a small fix, is still the original.
    let a2 = refetched(&a, &BUDGET.replace("Tuesday", "Wednesday"));
    assert_eq!(unique(&judge(&mut w, &a2)), Some("a"));
}

#[test]
fn a_replayed_short_article_is_recognised_too() {
    let mut w = Window::new(cfg(1000));
    let short = article("s", T0, "Brief", "Closed on Monday.");
    assert_eq!(unique(&judge(&mut w, &short)), Some("s"));
    assert_eq!(w.len(), 0, "too short for the window");
    assert_eq!(judge(&mut w, &short), vec![Decision::Replay]);
    let changed = refetched(&short, "Open again on Tuesday.");
    assert_eq!(unique(&judge(&mut w, &changed)), Some("s"));
}

#[test]
fn a_window_rebuilt_from_unique_articles_keeps_clusters_and_dates() {
    let mut w = Window::new(cfg(1000));
    let late = article("late", T0 + DAY, BUDGET_TITLE, BUDGET);
    let early = article("early", T0, BUDGET_TITLE, BUDGET);
    let storm = article("storm", T0, "Storm warning", STORM);
    // What the unique topic holds after the run: each with its cluster.
    let mut tail = Vec::new();
    for a in [&late, &early, &storm] {
        if let Some(Decision::Unique { cluster }) = judge(&mut w, a).first() {
            tail.push(Article {
                cluster: Some(cluster.clone()),
                ..a.clone()
            });
        }
    }
    assert_eq!(tail.len(), 3);
    let mut restarted = Window::new(cfg(1000));
    for a in &tail {
        let f = Features::of(&a.title, &a.text, restarted.cfg.sketch_size);
        restarted.remember(a, &f, T0 + 30 * DAY);
    }
    assert_eq!(restarted.len(), 3);
    let again = article("again", T0 + 3 * DAY, BUDGET_TITLE, BUDGET);
    assert_eq!(repost_of(&judge(&mut restarted, &again)), Some("early"));
    assert_eq!(
        judge(&mut restarted, &storm),
        vec![Decision::Replay],
        "a replay after a restart"
    );
    // Ages count from the articles' dates, not from the restart: eleven
    // days on, every copy of the budget story is too old to be copied.
    let again = article("again2", T0 + 11 * DAY, BUDGET_TITLE, BUDGET);
    assert_eq!(unique(&judge(&mut restarted, &again)), Some("again2"));
}

#[test]
fn template_pages_with_little_text_are_never_reposts_of_each_other() {
    let mut w = Window::new(cfg(1000));
    let page = |name: &str, price: u32, colour: &str| {
        format!(
            "{name}. Price: ${price}. In stock. Add to cart. Free delivery on orders over $50. \
             Colour: {colour}. Customer reviews (0). Write a review."
        )
    };
    let products = [
        ("Harbour rain jacket", 89, "navy"),
        ("Harbour rain jacket", 95, "red"),
        ("Summit wool jumper", 89, "navy"),
        ("Summit wool jumper", 89, "grey"),
    ];
    for (i, (name, price, colour)) in products.iter().enumerate() {
        let a = article(
            &format!("p{i}"),
            T0 + i as i64,
            name,
            &page(name, *price, colour),
        );
        assert_eq!(
            unique(&judge(&mut w, &a)),
            Some(a.id.as_str()),
            "{name} {colour}"
        );
    }
    assert_eq!(w.len(), 0, "too little text to compare, so not kept either");
}

#[test]
fn the_window_forgets_by_count_and_compares_by_publication_age() {
    let mut w = Window::new(cfg(1));
    judge(&mut w, &article("a", T0, BUDGET_TITLE, BUDGET));
    judge(&mut w, &article("s", T0 + 1, "Storm warning", STORM));
    assert_eq!(w.len(), 1);
    assert_eq!(
        unique(&judge(&mut w, &article("a2", T0 + 2, BUDGET_TITLE, BUDGET))),
        Some("a2"),
        "the budget story left the window"
    );
    let mut w = Window::new(cfg(100));
    judge(&mut w, &article("a", T0, BUDGET_TITLE, BUDGET));
    assert_eq!(
        unique(&judge(
            &mut w,
            &article("a2", T0 + 8 * DAY, BUDGET_TITLE, BUDGET)
        )),
        Some("a2"),
        "published more than seven days apart: not copies"
    );
    // A newer page crawled first does not push an archive story out: its
    // repost, crawled later, is still found.
    judge(
        &mut w,
        &article("new", T0 + 40 * DAY, "Storm warning", STORM),
    );
    let repost = article("a3", T0 + DAY, BUDGET_TITLE, BUDGET);
    assert_eq!(repost_of(&judge(&mut w, &repost)), Some("a"));
    assert_eq!(w.len(), 4);
}

/// Sentence `i` of a stock of distinct made-up sentences: twelve words
/// drawn by a hash of `i` from a few hundred, so that two sentences share
/// hardly any run of four words.
fn stock_sentence(i: usize) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mi", "ren", "tas", "vu", "bel", "dor", "fen", "gal", "hor", "jun", "kel",
        "mar", "nol", "pir", "quen", "ros", "sil", "tor", "ul", "vek", "wen", "zor",
    ];
    let mut h = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut words = Vec::new();
    for _ in 0..12 {
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let a = SYLLABLES[(h % 24) as usize];
        let b = SYLLABLES[((h >> 8) % 24) as usize];
        words.push(format!("{a}{b}"));
    }
    let mut s = words.join(" ");
    s[..1].make_ascii_uppercase();
    s + "."
}

#[test]
fn an_original_whose_sentences_are_everywhere_is_still_found() {
    let mut w = Window::new(cfg(10_000));
    // The original: ten sentences.
    let original: Vec<String> = (0..10).map(stock_sentence).collect();
    let text = original.join(" ");
    assert!(unique(&judge(&mut w, &article("orig", T0, "Ten things", &text))).is_some());
    // Then 170 articles, each quoting four running sentences of it among
    // twelve of their own: every run of words in the original is in
    // dozens of them.
    for n in 0..170usize {
        let mut sents: Vec<String> = (0..12).map(|k| stock_sentence(1000 + n * 12 + k)).collect();
        let k = n % 7;
        for (j, s) in original[k..k + 4].iter().enumerate() {
            sents.insert(6 + j, s.clone());
        }
        let a = article(
            &format!("later{n}"),
            T0 + 60 * (n as i64 + 1),
            "Other news",
            &sents.join(" "),
        );
        assert!(
            unique(&judge(&mut w, &a)).is_some(),
            "later{n} is not a copy"
        );
    }
    // Its verbatim copy and a copy trimmed to its first six sentences.
    let copy = article("copy", T0 + DAY, "Ten things", &text);
    assert_eq!(repost_of(&judge(&mut w, &copy)), Some("orig"));
    let trimmed = article("trim", T0 + DAY, "Ten things", &original[..6].join(" "));
    assert_eq!(repost_of(&judge(&mut w, &trimmed)), Some("orig"));
}

/// An article quoting four running sentences of `original` (from the
/// `n % 7`th) among twelve of its own.
fn quoting(original: &[String], n: usize, at: i64) -> Article {
    let mut sents: Vec<String> = (0..12).map(|k| stock_sentence(1000 + n * 12 + k)).collect();
    let k = n % 7;
    for (j, s) in original[k..k + 4].iter().enumerate() {
        sents.insert(6 + j, s.clone());
    }
    article(&format!("quote{n}"), at, "Other news", &sents.join(" "))
}

#[test]
fn an_original_made_of_wire_copy_seen_before_and_after_it_is_still_found() {
    // Every run of words of the original is wire copy: 60 articles quote
    // it before it arrives and 120 after. Posted under its smallest
    // hashes, kept with a key's earliest and latest postings, it was
    // pushed out of every key it had by the later quotes, the earlier ones
    // holding the earliest place.
    let mut w = Window::new(cfg(10_000));
    let original: Vec<String> = (0..10).map(stock_sentence).collect();
    let text = original.join(" ");
    for n in 0..180usize {
        if n == 60 {
            let a = article("orig", T0, "Ten things", &text);
            assert!(unique(&judge(&mut w, &a)).is_some());
        }
        let a = quoting(&original, n, T0 + 60 * (n as i64 - 60));
        assert!(
            unique(&judge(&mut w, &a)).is_some(),
            "quote{n} is not a copy"
        );
    }
    let copy = article("copy", T0 + DAY, "Ten things", &text);
    assert_eq!(repost_of(&judge(&mut w, &copy)), Some("orig"));
    let trimmed = article("trim", T0 + DAY, "Ten things", &original[..6].join(" "));
    assert_eq!(repost_of(&judge(&mut w, &trimmed)), Some("orig"));
}

#[test]
fn articles_sharing_only_a_boilerplate_paragraph_are_not_copies() {
    let mut w = Window::new(cfg(10_000));
    let boilerplate = "Subscribe to our newsletter for the latest news from the region. \
        Our journalism is funded by readers like you; support us from one pound a month. \
        Follow us on social media and tell us what you think of this story.";
    for n in 0..60usize {
        let own: Vec<String> = (0..6).map(|k| stock_sentence(5000 + n * 6 + k)).collect();
        let text = format!("{}\n\n{boilerplate}", own.join(" "));
        let a = article(
            &format!("b{n}"),
            T0 + 60 * n as i64,
            &format!("Story {n}"),
            &text,
        );
        assert!(
            unique(&judge(&mut w, &a)).is_some(),
            "b{n} is its own article"
        );
    }
}
