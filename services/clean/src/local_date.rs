//! The publication date in the publisher's own offset. Metadata often
//! gives the date-time in UTC (WordPress's `article:published_time`, many
//! JSON-LD `datePublished`s) while the page's `<time datetime>` writes the
//! same instant in the offset the site publishes in; that offset says the
//! day its readers saw (a post at 19:05 on 18 December in California is
//! 03:05 on the 19th in UTC), which is the day the page is dated.

/// Most `<time datetime>` values a page keeps for [`in_publishers_offset`]:
/// the article's own comes near the top, and a forum thread can carry
/// thousands.
pub(crate) const MAX_TIMES: usize = 32;

/// `date` as one of the page's `times` writes the same instant in another
/// offset than UTC, when `date` is in UTC; else `date` as it is.
pub(crate) fn in_publishers_offset(date: String, times: &[String]) -> String {
    let Some(instant) = utc_instant(&date) else {
        return date;
    };
    times
        .iter()
        .find(|t| {
            offset_of(t).is_some_and(|o| o != jiff::tz::Offset::UTC)
                && t.trim().parse::<jiff::Timestamp>().ok() == Some(instant)
        })
        .map_or(date, |t| t.trim().to_string())
}

/// The instant `date` names, when it names one in UTC (`Z`, `+00:00`).
fn utc_instant(date: &str) -> Option<jiff::Timestamp> {
    let date = date.trim();
    let utc = match jiff::fmt::temporal::Pieces::parse(date).ok()?.offset()? {
        jiff::fmt::temporal::PiecesOffset::Zulu => true,
        jiff::fmt::temporal::PiecesOffset::Numeric(n) => n.offset() == jiff::tz::Offset::UTC,
        _ => false,
    };
    utc.then(|| date.parse().ok()).flatten()
}

/// The numeric offset a date-time is written with, if any.
fn offset_of(time: &str) -> Option<jiff::tz::Offset> {
    match jiff::fmt::temporal::Pieces::parse(time.trim())
        .ok()?
        .offset()?
    {
        jiff::fmt::temporal::PiecesOffset::Numeric(n) => Some(n.offset()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_utc_date_takes_the_offset_a_time_element_writes_it_in() {
        let page = times(&["2025-12-16T10:00:00-08:00", "2025-12-18T19:05:00-08:00"]);
        assert_eq!(
            in_publishers_offset("2025-12-19T03:05:00+00:00".into(), &page),
            "2025-12-18T19:05:00-08:00"
        );
        // ISO 8601's basic offset, as a forum writes it.
        let forum = times(&["2025-12-19T04:25:38+0500"]);
        assert_eq!(
            in_publishers_offset("2025-12-18T23:25:38Z".into(), &forum),
            "2025-12-19T04:25:38+0500"
        );
    }

    #[test]
    fn another_instant_or_a_date_with_its_own_offset_stays() {
        // A comment's time, five minutes after the post.
        let page = times(&["2025-12-18T21:46:01-05:00", "2025-12-19T02:41:41"]);
        assert_eq!(
            in_publishers_offset("2025-12-19T02:41:41+00:00".into(), &page),
            "2025-12-19T02:41:41+00:00"
        );
        let page = times(&["2025-12-18T19:05:00-08:00"]);
        for date in [
            "2025-12-19T05:05:00+02:00",
            "2025-12-19",
            "19 December 2025",
        ] {
            assert_eq!(in_publishers_offset(date.into(), &page), date);
        }
    }
}
