//! The publication date read from the page itself (beside the headline,
//! under an element named for dates, or atop a thread's first post), for
//! pages whose metadata has none (article.rs asks the metadata first).
//! Reading a date's text is date.rs's.

use crate::date::normalise_date;
use crate::tree::near_names;
use gleaner_core::messages::Cleaned;

/// Names in ids and classes that hold a date.
fn names_date(path: &str) -> bool {
    near_names(
        path,
        &[
            "date", "time", "publish", "posted", "byline", "meta", "author",
        ],
    )
}

/// The publication date from the page itself: the first date in a short
/// block under an element named for dates, times, the byline or the
/// author, else in a short block within a few blocks of the `<h1>` (where
/// bylines sit).
pub fn page_date(c: &Cleaned) -> Option<String> {
    let short = |b: &&gleaner_core::messages::Block| b.text.chars().count() <= 80;
    let date_in = |b: &gleaner_core::messages::Block| {
        let t = b.text.trim();
        let t = &*unglued(t);
        normalise_date(t).or_else(|| {
            // A date inside a longer line: try each run of 3 tokens.
            let toks: Vec<&str> = t.split_whitespace().collect();
            toks.windows(3)
                .find_map(|w| normalise_date(&w.join(" ")))
                .or_else(|| toks.iter().find_map(|w| normalise_date(w)))
        })
    };
    c.blocks
        .iter()
        .take(400)
        .filter(short)
        .filter(|b| names_date(&b.path))
        .find_map(date_in)
        .or_else(|| {
            // The first `<h1>` may be the site's logo (CNN's), the
            // headline the next one: each of the first few is tried.
            c.blocks
                .iter()
                .enumerate()
                .filter(|(_, b)| b.tag == "h1")
                .take(3)
                .find_map(|(h1, _)| {
                    c.blocks[h1.saturating_sub(3)..(h1 + 6).min(c.blocks.len())]
                        .iter()
                        .filter(short)
                        .find_map(date_in)
                })
        })
        .or_else(|| posts_date(c, &date_in))
        .or_else(|| {
            // Further below the headline (past breadcrumbs, tags and
            // share buttons) but above the text, a line that is a date and
            // little else: the article's date line.
            let h1 = c.blocks.iter().position(|b| b.tag == "h1")?;
            c.blocks[(h1 + 6).min(c.blocks.len())..(h1 + 30).min(c.blocks.len())]
                .iter()
                .take_while(|b| b.text.chars().count() < PROSE_CHARS)
                .filter(|b| b.text.chars().count() <= DATE_LINE_CHARS)
                .find_map(|b| normalise_date(&b.text))
        })
}

/// `text` with a space where a date's span and the next or the last
/// one meet with no space between them: after a year that runs into a
/// word ("Dec 17, 2025Julian K. Arni"; a day's ordinal ending, "1st", is
/// no year) and between a lower-case letter and a capital ("Mental
/// HealthDECEMBER 22, 2022").
pub(crate) fn unglued(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let after_year = |i: usize| {
        i >= 4
            && b[i - 4..i].iter().all(u8::is_ascii_digit)
            && (i == 4 || !b[i - 5].is_ascii_digit())
            && text[i..].starts_with(char::is_alphabetic)
    };
    let mut out = String::new();
    let mut last = 0;
    let mut previous: Option<char> = None;
    for (i, c) in text.char_indices() {
        let case_glue = previous.is_some_and(char::is_lowercase) && c.is_uppercase();
        if i > 0 && (case_glue || after_year(i)) {
            out.push_str(&text[last..i]);
            out.push(' ');
            last = i;
        }
        previous = Some(c);
    }
    if last == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

/// A thread's date: its first post's, where each post opens with a header
/// that gives its date and time ("30th March 2025, 16:26", "#1
/// 2025-11-01 15:14:37", "11-29-2024, 09:03 AM #1"): the first of two or
/// more short blocks at one tag path (ids aside: each post has its own)
/// that hold a time of day and a date. A forum package prints them so
/// (vBulletin, FluxBB, MyBB), with no date in the page's metadata.
fn posts_date(
    c: &Cleaned,
    date_in: &dyn Fn(&gleaner_core::messages::Block) -> Option<String>,
) -> Option<String> {
    let blocks = || c.blocks.iter().take(400);
    let headers: Vec<String> = blocks()
        .filter(|b| b.text.chars().count() <= 80 && has_time_of_day(&b.text))
        .filter(|b| date_in(b).is_some())
        .map(|b| without_ids(&b.path))
        .collect();
    let path = headers
        .iter()
        .find(|path| headers.iter().filter(|p| p == path).count() >= 2)?;
    // The first post's header may say more ("2019-02-23, 09:14 PM (This
    // post was last modified: ...)").
    blocks()
        .filter(|b| b.text.chars().count() <= 200 && without_ids(&b.path) == *path)
        .find_map(date_in)
}

/// Whether a text holds a time of day (`16:26`, `9:03`).
fn has_time_of_day(text: &str) -> bool {
    let b = text.as_bytes();
    (1..b.len().saturating_sub(2)).any(|i| {
        b[i] == b':'
            && b[i - 1].is_ascii_digit()
            && b[i + 1].is_ascii_digit()
            && b[i + 2].is_ascii_digit()
    })
}

/// A tag path without its elements' ids (`div#post2017066.post` is
/// `div.post`).
fn without_ids(path: &str) -> String {
    path.split('/')
        .map(|label| match label.split_once('#') {
            Some((tag, rest)) => match rest.find('.') {
                Some(dot) => format!("{tag}{}", &rest[dot..]),
                None => tag.to_string(),
            },
            None => label.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The longest block read as a date line (`Updated on 11 December 2025`).
const DATE_LINE_CHARS: usize = 40;
/// A block this long is the article's text, below which a date is only a
/// date the text mentions.
const PROSE_CHARS: usize = 120;
