//! Article metadata: a clean title, ISO 8601 dates, and a language guess
//! when the page does not declare one.

use gleaner_core::messages::Cleaned;

const TITLE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " / "];

/// The article title: the first `<h1>` when the `<title>` contains it (the
/// title usually adds the site name), else `og:title`, else the longest part
/// of `<title>` between site-name separators.
pub fn page_title(c: &Cleaned) -> String {
    let raw = c.title.trim();
    let h1 = c
        .blocks
        .iter()
        .find(|b| b.tag == "h1")
        .map(|b| b.text.trim());
    if let Some(h1) = h1 {
        if !h1.is_empty()
            && (raw.contains(h1) || c.meta.og_title.as_deref().is_some_and(|o| o.contains(h1)))
        {
            return h1.to_string();
        }
    }
    if let Some(og) = c
        .meta
        .og_title
        .as_deref()
        .map(str::trim)
        .filter(|o| !o.is_empty())
    {
        return og.to_string();
    }
    let mut best = raw;
    for sep in TITLE_SEPARATORS {
        if raw.contains(sep) {
            best = raw
                .split(sep)
                .max_by_key(|p| p.chars().count())
                .unwrap_or(raw)
                .trim();
            break;
        }
    }
    if best.is_empty() {
        h1.unwrap_or_default().to_string()
    } else {
        best.to_string()
    }
}

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A date as ISO 8601: `YYYY-MM-DD`, or the full timestamp when the input
/// already is one. Reads ISO dates, `YYYY/MM/DD`, `1 May 2024` and
/// `May 1, 2024`; anything else gives `None`.
pub fn normalise_date(raw: &str) -> Option<String> {
    let s = raw.trim();
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
    {
        let (y, m, d) = (&s[0..4], &s[5..7], &s[8..10]);
        let date = valid(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)?;
        if b.get(4) == Some(&b'-') && matches!(b.get(10), Some(b'T' | b' ')) && s.len() >= 16 {
            let rest: String = s[10..].chars().take(20).collect();
            return Some(format!("{date}T{}", rest[1..].trim()));
        }
        return Some(date);
    }
    // Word forms: "1 May 2024", "May 1, 2024", "Monday, 1 May 2024".
    let lower = s.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    let month = tokens
        .iter()
        .position(|t| t.len() >= 3 && MONTHS.iter().any(|m| t.starts_with(m)))?;
    let m = MONTHS.iter().position(|mm| tokens[month].starts_with(mm))? as u32 + 1;
    let num = |t: &&str| t.parse::<u32>().ok();
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
    valid(year, m, day)
}

fn valid(y: u32, m: u32, d: u32) -> Option<String> {
    ((1900..=2100).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// A language guess from the script and, for Latin text, English function
/// words. Returns `None` when unsure rather than guessing wrong.
pub fn guess_language(text: &str) -> Option<String> {
    let (mut kana, mut han, mut hangul, mut latin) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars().take(5000) {
        match c as u32 {
            0x3040..=0x30FF => kana += 1,
            0x4E00..=0x9FFF | 0x3400..=0x4DBF => han += 1,
            0xAC00..=0xD7AF => hangul += 1,
            _ if c.is_ascii_alphabetic() => latin += 1,
            _ => {}
        }
    }
    let cjk = kana + han + hangul;
    if cjk > latin {
        return Some(
            if kana * 10 >= cjk {
                "ja"
            } else if hangul > han {
                "ko"
            } else {
                "zh"
            }
            .to_string(),
        );
    }
    let words = gleaner_text::words(text);
    if words.len() < 10 {
        return None;
    }
    let english = words
        .iter()
        .take(2000)
        .filter(|w| {
            matches!(
                w.as_str(),
                "the" | "and" | "of" | "to" | "is" | "in" | "that" | "for"
            )
        })
        .count();
    (english * 20 >= words.len().min(2000)).then(|| "en".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_become_iso() {
        assert_eq!(normalise_date("2024-05-01").as_deref(), Some("2024-05-01"));
        assert_eq!(
            normalise_date("2024-05-01T10:00:00+02:00").as_deref(),
            Some("2024-05-01T10:00:00+02:00")
        );
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
