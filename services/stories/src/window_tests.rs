use super::*;

fn article(id: &str, date: &str, title: &str, text: &str) -> Article {
    Article {
        id: id.into(),
        url: format!("https://news.example/{id}"),
        title: title.into(),
        author: None,
        date: Some(date.into()),
        language: Some("en".into()),
        text: text.into(),
        extractor: "test".into(),
        fetched_at: date.into(),
        cluster: None,
        story: None,
        ..Default::default()
    }
}

const VISA: &str = "Home Secretary David Blunkett faces questions over the visa application of Leoncia Casalme, the nanny of his former lover Kimberly Quinn. Sir Alan Budd will examine whether the Home Office sped up the visa. Blunkett denies any wrongdoing in the visa affair.";
const VISA2: &str = "David Blunkett resigned as Home Secretary after the Budd inquiry found an email about the visa for Leoncia Casalme. Kimberly Quinn's nanny had her visa fast-tracked, Sir Alan Budd said. Blunkett said he had not knowingly sped up the visa.";
const HUNT: &str = "The ban on hunting with dogs came into force in England and Wales at midnight. The Countryside Alliance said hunts would meet on Saturday within the law. Hunt supporters plan a legal challenge to the Hunting Act at the Court of Appeal.";
const HUNT2: &str = "Hunts across England met on Saturday, the first day of the ban on hunting with dogs. The Countryside Alliance said hundreds of hunts kept to the Hunting Act by following trails. Police said no arrests were made as the ban came into force.";
const BUDGET: &str = "Chancellor Gordon Brown raised the stamp duty threshold and froze fuel duty in his Budget. Pensioners get a council tax refund of 200 pounds. The Conservatives said the Budget meant higher taxes after the election.";

/// When the tests run: after every date they use but the future one.
const NOW: i64 = 1_800_000_000;

fn stories() -> Stories {
    Stories::new(StorySettings::default())
}

#[test]
fn reports_of_one_story_join_it_and_others_start_their_own() {
    let mut s = stories();
    // A few unrelated articles first, so that IDF means something.
    let a = s.assign(&article("a", "2005-03-01", "Blunkett visa row", VISA), NOW);
    let b = s.assign(&article("b", "2005-03-02", "Hunting ban starts", HUNT), NOW);
    let c = s.assign(&article("c", "2005-03-03", "Brown's Budget", BUDGET), NOW);
    assert_eq!(
        (a.story.as_str(), b.story.as_str(), c.story.as_str()),
        ("a", "b", "c")
    );
    assert_eq!(a.events[0].kind, "created");
    let d = s.assign(
        &article("d", "2005-03-04", "Blunkett resigns over visa", VISA2),
        NOW,
    );
    assert_eq!(d.story, "a", "{d:?}");
    assert!(d.events.is_empty());
    let e = s.assign(
        &article("e", "2005-03-05", "First hunts under the ban", HUNT2),
        NOW,
    );
    assert_eq!(e.story, "b");
    assert_eq!(s.open(), 3);
}

#[test]
fn a_report_long_after_the_story_went_quiet_starts_a_new_one() {
    let mut s = stories();
    s.assign(&article("a", "2005-01-01", "Blunkett visa row", VISA), NOW);
    s.assign(&article("b", "2005-01-02", "Hunting ban starts", HUNT), NOW);
    let late = s.assign(
        &article("d", "2005-06-01", "Blunkett resigns over visa", VISA2),
        NOW,
    );
    assert_eq!(late.story, "d");
    // Within the window, the same report would have joined.
    let mut s = stories();
    s.assign(&article("a", "2005-01-01", "Blunkett visa row", VISA), NOW);
    s.assign(&article("b", "2005-01-02", "Hunting ban starts", HUNT), NOW);
    let soon = s.assign(
        &article("d", "2005-01-10", "Blunkett resigns over visa", VISA2),
        NOW,
    );
    assert_eq!(soon.story, "a");
}

#[test]
fn an_article_seen_again_keeps_its_story_and_a_replay_gives_the_same_ids() {
    let stream = [
        article("a", "2005-03-01", "Blunkett visa row", VISA),
        article("b", "2005-03-02", "Hunting ban starts", HUNT),
        article("c", "2005-03-03", "Blunkett resigns over visa", VISA2),
        article("d", "2005-03-04", "Brown's Budget", BUDGET),
        article("e", "2005-03-05", "First hunts under the ban", HUNT2),
    ];
    let run = || {
        let mut s = stories();
        stream
            .iter()
            .map(|a| s.assign(a, NOW).story)
            .collect::<Vec<_>>()
    };
    let first = run();
    assert_eq!(first, run());
    let mut s = stories();
    for a in &stream {
        s.assign(a, NOW);
    }
    let again = s.assign(&stream[2], NOW);
    assert_eq!((again.story.as_str(), again.events.len()), ("a", 0));
}

#[test]
fn a_report_close_to_two_stories_merges_them_into_the_older() {
    // Strict joining, loose merging: the two halves of the visa affair
    // start apart, and a report that tells both joins them.
    let settings = StorySettings {
        threshold: 0.3,
        merge_threshold: 0.2,
        ..StorySettings::default()
    };
    let mut s = Stories::new(settings);
    let first_half = "Sir Alan Budd will examine whether the Home Office sped up the visa application of Leoncia Casalme. The inquiry into the visa begins on Monday.";
    let second_half = "David Blunkett's former lover Kimberly Quinn is expecting a second child. Blunkett is seeking access to his son, lawyers for Kimberly Quinn said.";
    s.assign(&article("x", "2005-03-01", "Hunting ban starts", HUNT), NOW);
    s.assign(&article("y", "2005-03-01", "Brown's Budget", BUDGET), NOW);
    let a = s.assign(&article("a", "2005-03-02", "Visa inquiry", first_half), NOW);
    let b = s.assign(
        &article("b", "2005-03-03", "Quinn custody", second_half),
        NOW,
    );
    assert_eq!((a.story.as_str(), b.story.as_str()), ("a", "b"));
    let both = format!("{first_half} {second_half}");
    let c = s.assign(&article("c", "2005-03-04", "Blunkett affair", &both), NOW);
    assert_eq!(c.story, "a", "{c:?}");
    let merge = c
        .events
        .iter()
        .find(|e| e.kind == "merged")
        .expect("a merge");
    assert_eq!(
        (merge.story.as_str(), merge.into.as_deref()),
        ("b", Some("a"))
    );
    // The merged story's reports now belong to the older one.
    assert_eq!(
        s.assign(
            &article("b", "2005-03-03", "Quinn custody", second_half),
            NOW
        )
        .story,
        "a"
    );
}

#[test]
fn the_window_rebuilt_from_placed_articles_places_the_next_alike() {
    let placed = [
        (article("a", "2005-03-01", "Blunkett visa row", VISA), "a"),
        (article("b", "2005-03-02", "Hunting ban starts", HUNT), "b"),
    ];
    let mut s = stories();
    for (a, story) in &placed {
        s.remember(a, story, NOW);
    }
    let d = s.assign(
        &article("d", "2005-03-04", "Blunkett resigns over visa", VISA2),
        NOW,
    );
    assert_eq!(d.story, "a");
}

#[test]
fn open_stories_are_bounded() {
    let mut s = Stories::new(StorySettings {
        max_open: 50,
        ..StorySettings::default()
    });
    for i in 0..500 {
        let text = format!("Unrelated item {i} about topic{i} and subject{i} with detail{i}.");
        s.assign(
            &article(&format!("n{i}"), "2005-03-01", &format!("Item {i}"), &text),
            NOW,
        );
        assert!(s.open() <= 51, "{} open", s.open());
    }
}

#[test]
fn a_story_is_found_among_thousands_that_share_its_common_words() {
    let mut s = stories();
    s.assign(
        &article("visa", "2005-03-01", "Blunkett visa row", VISA),
        NOW,
    );
    // Thousands of other stories that mention a visa and the Home Office,
    // each with names of its own: the postings of those words grow long.
    for i in 0..3000 {
        let text = format!(
            "Tourist visa fees for travellers from Town{i} rise next month, the Home Office said. \
             Agency{i} in Region{i} expects fewer visitors to Place{i} and Resort{i}."
        );
        let a = s.assign(
            &article(&format!("n{i}"), "2005-03-02", "Visa fees", &text),
            NOW,
        );
        assert_ne!(a.story, "visa", "n{i} is another story");
    }
    let d = s.assign(
        &article("d", "2005-03-04", "Blunkett resigns over visa", VISA2),
        NOW,
    );
    assert_eq!(d.story, "visa");
    // Found through its rare words, not by reading every posting.
    assert!(s.postings_read < 3002 * 256, "{}", s.postings_read);
}

#[test]
fn a_page_dated_far_in_the_future_does_not_close_the_open_stories() {
    let now = 1_110_000_000; // 2005-03-05
    let mut s = stories();
    s.assign(&article("a", "2005-03-01", "Blunkett visa row", VISA), now);
    s.assign(&article("b", "2005-03-02", "Hunting ban starts", HUNT), now);
    // Enough articles dated 2999 to trigger sweeps of closed stories.
    for i in 0..1100 {
        let text = format!("Unrelated item {i} about topic{i} and subject{i} with detail{i}.");
        s.assign(
            &article(&format!("f{i}"), "2999-01-01", &format!("Item {i}"), &text),
            now,
        );
    }
    let d = s.assign(
        &article("d", "2005-03-04", "Blunkett resigns over visa", VISA2),
        now,
    );
    assert_eq!(d.story, "a");
}
