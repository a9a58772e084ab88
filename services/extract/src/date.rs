//! Dates: the publication date read from the page itself (beside the
//! headline, or under an element named for dates), for pages whose
//! metadata has none (article.rs asks the metadata first), and any date
//! made ISO 8601.

use crate::meta::near_names;
use gleaner_core::messages::Cleaned;

/// Names in ids and classes that hold a date.
fn names_date(path: &str) -> bool {
    near_names(
        path,
        &["date", "time", "publish", "posted", "byline", "meta"],
    )
}

/// The publication date from the page itself: the first date in a short
/// block under an element named for dates, times or the byline, else in a
/// short block within a few blocks of the `<h1>` (where bylines sit).
pub fn page_date(c: &Cleaned) -> Option<String> {
    let short = |b: &&gleaner_core::messages::Block| b.text.chars().count() <= 80;
    let date_in = |b: &gleaner_core::messages::Block| {
        let t = b.text.trim();
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
            let h1 = c.blocks.iter().position(|b| b.tag == "h1")?;
            c.blocks[h1.saturating_sub(3)..(h1 + 6).min(c.blocks.len())]
                .iter()
                .filter(short)
                .find_map(date_in)
        })
}

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A date as RFC 3339: a timestamp with an offset (RFC 3339, ISO 8601 or
/// RFC 2822, as HTTP and RSS write them) becomes `YYYY-MM-DDTHH:MM:SS`
/// with its own offset (`Z` for UTC). The offset is kept, not applied:
/// converted to UTC, 14 of 782 dated wcxb-dev pages moved to another day
/// than the one they were published on locally (`gleaner eval`: date
/// accuracy 0.803 against 0.821). A date-time without an offset keeps its
/// wall-clock time without one; a date alone (ISO, `YYYY/MM/DD`, `YYYY.MM.DD`, `1 May 2024`,
/// `May 1, 2024`) is `YYYY-MM-DD`. Parsing and calendar checks are jiff's:
/// impossible dates (2024-02-31) give `None`, as does anything else.
pub fn normalise_date(raw: &str) -> Option<String> {
    let s = raw.trim();
    if s.is_empty() || s.len() > 64 {
        return None;
    }
    use jiff::fmt::temporal::{Pieces, PiecesOffset};
    use jiff::tz::{Offset, TimeZone};
    let rfc3339 = |z: jiff::Zoned| {
        in_range(z.date())?;
        Some(if z.offset() == Offset::UTC {
            z.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
        } else {
            z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
        })
    };
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        let offset = match Pieces::parse(s).ok().and_then(|p| p.offset()) {
            Some(PiecesOffset::Numeric(n)) => n.offset(),
            _ => Offset::UTC,
        };
        return rfc3339(ts.to_zoned(TimeZone::fixed(offset)));
    }
    if let Ok(z) = jiff::fmt::rfc2822::parse(s) {
        return rfc3339(z);
    }
    if s.len() > 10 && s.as_bytes()[4] == b'-' {
        if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
            return in_range(dt.date()).map(|_| dt.strftime("%Y-%m-%dT%H:%M:%S").to_string());
        }
    }
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
    };
    if digits(0..4)
        && matches!(b.get(4), Some(b'-' | b'/' | b'.'))
        && digits(5..7)
        && b.get(7) == b.get(4)
        && digits(8..10)
        && b.get(10).is_none_or(|c| !c.is_ascii_digit())
    {
        return date(
            s[0..4].parse().ok()?,
            s[5..7].parse().ok()?,
            s[8..10].parse().ok()?,
        );
    }
    // Word forms: "1 May 2024", "May 1, 2024", "Monday, 1 May 2024". Free
    // text in many shapes, which no date crate reads: found by hand here,
    // checked by jiff.
    let lower = s.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    let month = tokens
        .iter()
        .position(|t| t.len() >= 3 && MONTHS.iter().any(|m| t.starts_with(m)))?;
    let m = MONTHS.iter().position(|mm| tokens[month].starts_with(mm))? as i8 + 1;
    let num = |t: &&str| t.parse::<i16>().ok();
    let year = tokens
        .iter()
        .filter_map(num)
        .find(|&y| (1900..=2100).contains(&y))?;
    let day = tokens
        .iter()
        .enumerate()
        .filter(|(i, _)| i.abs_diff(month) == 1)
        .filter_map(|(_, t)| num(t))
        .find(|&d| (1..=31).contains(&d))?;
    date(year, m, day as i8)
}

/// A real calendar date in the years an article can carry, as `YYYY-MM-DD`.
fn date(y: i16, m: i8, d: i8) -> Option<String> {
    let day = jiff::civil::Date::new(y, m, d).ok()?;
    in_range(day).map(|d| d.to_string())
}

/// Dates before 1900 or after 2100 are misreadings, not publication dates.
fn in_range(d: jiff::civil::Date) -> Option<jiff::civil::Date> {
    (1900..=2100).contains(&d.year()).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::tests::page_of;

    #[test]
    fn a_date_beside_the_headline_is_the_pages_date() {
        let c = page_of("<h1>Story</h1><p>Jane Doe</p><p>Updated on December 11, 2025</p><p>Text of the story.</p>");
        assert_eq!(page_date(&c).as_deref(), Some("2025-12-11"));
        // Far below the headline, a date is just a date in the text.
        let filler = "<p>More text.</p>".repeat(8);
        let c = page_of(&format!("<h1>Story</h1>{filler}<p>On May 1, 2024</p>"));
        assert_eq!(page_date(&c), None);
        // An element named for dates wins wherever it is.
        let c = page_of(&format!(
            "<h1>Story</h1>{filler}<p class='post-date'>May 1, 2024</p>"
        ));
        assert_eq!(page_date(&c).as_deref(), Some("2024-05-01"));
    }

    #[test]
    fn dates_become_iso() {
        assert_eq!(normalise_date("2024-05-01").as_deref(), Some("2024-05-01"));
        assert_eq!(
            normalise_date("2024-05-01T10:00:00+02:00").as_deref(),
            Some("2024-05-01T10:00:00+02:00"),
            "the offset is kept"
        );
        assert_eq!(
            normalise_date("2024-05-01T10:00:00.123Z").as_deref(),
            Some("2024-05-01T10:00:00Z")
        );
        assert_eq!(
            normalise_date("Wed, 01 May 2024 23:30:00 -0500").as_deref(),
            Some("2024-05-01T23:30:00-05:00"),
            "RFC 2822, as in HTTP headers and RSS"
        );
        assert_eq!(
            normalise_date("Wed, 01 May 2024 23:30:00 GMT").as_deref(),
            Some("2024-05-01T23:30:00Z")
        );
        assert_eq!(
            normalise_date("2024-05-01T10:00:00").as_deref(),
            Some("2024-05-01T10:00:00"),
            "no offset: the wall-clock time, without one"
        );
        assert_eq!(normalise_date("2024.05.01").as_deref(), Some("2024-05-01"));
        for impossible in [
            "2024-02-31",
            "2023-02-29",
            "2024/13/01",
            "31 February 2024",
            "2024-04-31T10:00:00Z",
            "1850-01-01",
        ] {
            assert_eq!(normalise_date(impossible), None, "{impossible}");
        }
        assert_eq!(normalise_date("2024-02-29").as_deref(), Some("2024-02-29"));
        assert_eq!(normalise_date("2024/5/01"), None);
        assert_eq!(
            normalise_date("Monday, 1 May 2024").as_deref(),
            Some("2024-05-01")
        );
        assert_eq!(
            normalise_date("Sept. 3, 2021").as_deref(),
            Some("2021-09-03")
        );
        assert_eq!(normalise_date("yesterday"), None);
    }
}
