//! Event time: when an article was published, by its own date, else when
//! its page was fetched. Dedup's "the earliest published copy wins" and its
//! window's age are measured on it (so both hold for a replayed or
//! out-of-order stream and across a restart), and search collapses copies
//! to the earliest by it.

use crate::messages::Article;

/// A point in time with the precision it was given at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// Unix seconds (UTC).
    pub secs: i64,
    /// Only the day was known (midnight UTC stands for the whole day).
    pub day_only: bool,
}

impl Event {
    /// The article's date if it reads as one, else its fetch time, else `now`.
    pub fn of(a: &Article, now: i64) -> Event {
        a.date
            .as_deref()
            .and_then(parse)
            .or_else(|| parse(&a.fetched_at))
            .unwrap_or(Event {
                secs: now,
                day_only: false,
            })
    }

    /// Strictly earlier. When either side knows only its day, the days are
    /// compared: a copy dated "2024-05-01" is not earlier than an original
    /// timestamped that morning.
    pub fn earlier_than(self, other: Event) -> bool {
        if self.day_only || other.day_only {
            self.secs.div_euclid(86_400) < other.secs.div_euclid(86_400)
        } else {
            self.secs < other.secs
        }
    }
}

/// An RFC 3339 timestamp, an ISO date-time without offset (taken as UTC) or
/// an ISO date; impossible dates are refused (jiff checks them).
pub fn parse(raw: &str) -> Option<Event> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(Event {
            secs: ts.as_second(),
            day_only: false,
        });
    }
    let utc = |dt: jiff::civil::DateTime| {
        dt.to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().as_second())
    };
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        if s.len() > 10 {
            return utc(dt).map(|secs| Event {
                secs,
                day_only: false,
            });
        }
    }
    let d = s.get(..10)?.parse::<jiff::civil::Date>().ok()?;
    utc(d.to_datetime(jiff::civil::Time::midnight())).map(|secs| Event {
        secs,
        day_only: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_timestamps_local_times_and_dates() {
        let z = parse("2024-05-01T10:00:00Z").unwrap();
        assert_eq!(z.secs, 1_714_557_600);
        assert!(!z.day_only);
        assert_eq!(parse("2024-05-01T12:00:00+02:00").unwrap(), z);
        assert_eq!(parse("2024-05-01T10:00:00").unwrap(), z);
        let d = parse("2024-05-01").unwrap();
        assert_eq!((d.secs, d.day_only), (1_714_521_600, true));
        assert_eq!(parse("2024-02-31"), None, "no such day");
        assert_eq!(parse("yesterday"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn a_day_is_not_earlier_than_a_time_on_that_day() {
        let morning = parse("2024-05-01T09:00:00Z").unwrap();
        let day = parse("2024-05-01").unwrap();
        assert!(!day.earlier_than(morning) && !morning.earlier_than(day));
        assert!(parse("2024-04-30").unwrap().earlier_than(morning));
        assert!(morning.earlier_than(parse("2024-05-01T09:00:01Z").unwrap()));
    }

    #[test]
    fn falls_back_to_fetch_time_then_now() {
        let mut a = Article {
            id: "a".into(),
            url: "u".into(),
            title: String::new(),
            author: None,
            date: Some("not a date".into()),
            language: None,
            text: String::new(),
            extractor: "auto".into(),
            fetched_at: "2024-05-01T10:00:00Z".into(),
            cluster: None,
            story: None,
            ..Default::default()
        };
        assert_eq!(Event::of(&a, 5).secs, 1_714_557_600);
        a.fetched_at.clear();
        assert_eq!(Event::of(&a, 5).secs, 5);
    }
}
