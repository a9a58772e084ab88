//! A forum thread's posts are its text; the chrome each post repeats (the
//! author panel's labels and rank, the quote box's "Click to expand...")
//! is not, in any language, while the page says it is a forum's. An
//! article whose paragraphs are as short keeps them.

mod common;

use gleaner_extract::{extract, Extractor};

struct Thread {
    code: &'static str,
    posts: [&'static str; 4],
    /// The author panel's labels and the member's rank, the quote box's
    /// link: every post repeats them.
    chrome: [&'static str; 4],
}

const THREADS: [Thread; 2] = [
    Thread {
        code: "en",
        posts: [
            "I heard that the first programme already sent out interview invitations, so I figured we should start a thread for this cycle.",
            "Got mine from the university hospital this morning. The interview is online and lasts about forty minutes, with two faculty members.",
            "Congratulations to everyone who heard back. Still waiting on the three programmes I applied to in the north of the country.",
            "Does anyone know whether the second round of invitations goes out before the holidays, or only in the new year?",
        ],
        chrome: ["Full Member", "Joined", "Messages", "Click to expand..."],
    },
    Thread {
        code: "de",
        posts: [
            "Ich habe gehört, dass die ersten Kliniken schon Einladungen zum Vorstellungsgespräch verschickt haben, deshalb eröffne ich diesen Thread.",
            "Meine Einladung kam heute früh von der Uniklinik. Das Gespräch findet online statt und dauert etwa vierzig Minuten mit zwei Oberärzten.",
            "Glückwunsch an alle, die schon eine Antwort haben. Ich warte noch auf drei Programme, bei denen ich mich im Norden beworben habe.",
            "Weiß jemand, ob die zweite Runde der Einladungen noch vor den Feiertagen verschickt wird oder erst im neuen Jahr?",
        ],
        chrome: ["Mitglied", "Registriert", "Beiträge", "Zum Erweitern klicken..."],
    },
];

fn page(t: &Thread) -> String {
    let [rank, joined, messages, expand] = t.chrome;
    let names = ["boobaloobie", "pnomes", "ridgeline", "kestrel"];
    let posts: String = t
        .posts
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (text, name))| {
            // Every post but the first quotes the one before it.
            let quote = match i {
                0 => String::new(),
                _ => format!(
                    r#"<blockquote class="bbCodeBlock--quote"><div class="bbCodeBlock-title">{} said:</div><div class="bbCodeBlock-expandContent">{}</div><div class="bbCodeBlock-expandLink"><a>{expand}</a></div></blockquote>"#,
                    names[i - 1],
                    &t.posts[i - 1][..40]
                ),
            };
            format!(
                r##"<article class="message message--post"><div class="message-cell--user"><h4 class="message-name"><a href="/members/{name}">{name}</a></h4>
<h5 class="userTitle">{rank}</h5><dl class="pairs"><dt>{joined}</dt><dd>Jun {day}, 2016</dd></dl><dl class="pairs"><dt>{messages}</dt><dd>{count}</dd></dl></div>
<div class="message-cell--main"><div class="message-attribution"><time>Jul 18, 2024</time> <a href="#post-{i}">#{n}</a></div>
<div class="message-body"><div class="bbWrapper">{quote}{text}</div></div></div></article>"##,
                day = 10 + i,
                count = 11 + 7 * i,
                n = i + 1,
            )
        })
        .collect();
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>2024-2025 application thread | Forum</title>
<script type="application/ld+json">{{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"2024-2025 application thread","author":{{"@type":"Person","name":"boobaloobie"}}}}</script></head>
<body><div class="p-nav"><a href="/">Forums</a> <a href="/whats-new">What's new</a> <a href="/members">Members</a></div>
<div class="p-body"><h1 class="p-title-value">2024-2025 application thread</h1>
<div class="block-body">{posts}</div></div>
<div class="p-footer"><a href="/help">Help</a> <a href="/terms">Terms and rules</a></div></body></html>"##,
        code = t.code,
    )
}

#[test]
fn a_threads_posts_stay_and_what_each_post_repeats_goes() {
    let mut failures = Vec::new();
    for t in &THREADS {
        let a = extract(
            &common::cleaned_at(&page(t), "https://forum.test/threads/1"),
            Extractor::Auto,
        );
        failures.extend(common::text_failures(t.code, &a.text, &t.posts, &t.chrome));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_article_keeps_its_short_lines() {
    // The same panel's words on a page that is not a forum's stay for the
    // classifiers to judge: an article's short repeated lines may be its
    // own (a list's "Yes" and "No" answers).
    let t = &THREADS[0];
    let html = page(t).replace("DiscussionForumPosting", "NewsArticle");
    let a = extract(
        &common::cleaned_at(&html, "https://forum.test/threads/1"),
        Extractor::Auto,
    );
    let forum = extract(
        &common::cleaned_at(&page(t), "https://forum.test/threads/1"),
        Extractor::Auto,
    );
    assert!(
        a.text.matches("Click to expand...").count()
            > forum.text.matches("Click to expand...").count(),
        "article: {:?}\nforum: {:?}",
        a.text,
        forum.text
    );
}
