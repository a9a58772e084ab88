//! Dates made ISO 8601: a date as a page writes it (metadata, a byline,
//! a date line; many languages and forms) read by [`normalise_date`].
//! Where on the page the date is found is page_date.rs's.

/// English months written out; a word names one when it is its first
/// three letters or more ("sep", "sept", "september"), not any word
/// that starts so ("Junkies", "Marketing", "Decision").
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
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
    // Counted in characters: an Arabic or Russian date line takes two
    // bytes a letter.
    if s.is_empty() || s.chars().nth(64).is_some() {
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
    if let Some(d) = day_month_year(s) {
        return Some(d);
    }
    // Word forms: "1 May 2024", "May 1, 2024", "Monday, 1 May 2024". Free
    // text in many shapes, which no date crate reads: found by hand here,
    // checked by jiff.
    let lower = s.to_lowercase();
    let lower = with_ascii_digits(&lower);
    let lower = one_word_months(&lower);
    let tokens: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    if let Some(d) = cjk_date(&lower) {
        return Some(d);
    }
    let (month, m) = tokens
        .iter()
        .enumerate()
        .find_map(|(i, t)| month_of(t).map(|m| (i, m as i8 + 1)))?;
    // A day may carry its ordinal's ending: "1st", "22nd", "3rd", "9th",
    // French "1er".
    let num = |t: &&str| {
        let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let ending = &t[digits.len()..];
        matches!(ending, "" | "st" | "nd" | "rd" | "th" | "er")
            .then(|| digits.parse::<i16>().ok())
            .flatten()
    };
    let year = tokens
        .iter()
        .filter_map(num)
        .find(|&y| (1900..=2100).contains(&y))?;
    // The day is beside the month, or one short word away (`5 de marzo`).
    let beside = |i: usize| {
        i.abs_diff(month) == 1
            || (i.abs_diff(month) == 2
                && tokens[(i + month) / 2].chars().all(char::is_alphabetic)
                && tokens[(i + month) / 2].chars().count() <= 3)
    };
    let day = tokens
        .iter()
        .enumerate()
        .filter(|(i, _)| beside(*i))
        .filter_map(|(_, t)| num(t))
        .find(|&d| (1..=31).contains(&d))?;
    date(year, m, day as i8)
}

/// A day and month in digits before a four-digit year (`25.09.2025`,
/// `09/25/2025`, `5-3-2024`), the whole text. Which number is the month
/// only the locale says, so: one over 12 is the day; with dots, the day
/// comes first wherever dots are written (German, Russian, Polish,
/// Scandinavian); `02/03/2024` (2 March in Britain, 3 February in the
/// United States) is no date rather than a wrong one.
fn day_month_year(s: &str) -> Option<String> {
    let s = s.trim_end_matches([',', ';']);
    let sep = s.chars().find(|c| matches!(c, '.' | '/' | '-'))?;
    let parts: Vec<&str> = s.split(sep).collect();
    let [a, b, y] = parts[..] else {
        return None;
    };
    let small = |t: &str| (1..=2).contains(&t.len()) && t.bytes().all(|c| c.is_ascii_digit());
    if !(small(a) && small(b) && y.len() == 4 && y.bytes().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let (a, b, y): (i8, i8, i16) = (a.parse().ok()?, b.parse().ok()?, y.parse().ok()?);
    let (day, month) = match (a > 12, b > 12) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        (false, false) if sep == '.' => (a, b),
        _ => return None,
    };
    date(y, month, day)
}

/// Arabic-Indic and Persian digits (`٢٨ آب ٢٠١٣`) as ASCII ones.
fn with_ascii_digits(s: &str) -> std::borrow::Cow<'_, str> {
    let ascii = |c: char| match c {
        '\u{660}'..='\u{669}' => char::from_digit(c as u32 - 0x660, 10),
        '\u{6f0}'..='\u{6f9}' => char::from_digit(c as u32 - 0x6f0, 10),
        _ => None,
    };
    if s.chars().any(|c| ascii(c).is_some()) {
        s.chars().map(|c| ascii(c).unwrap_or(c)).collect()
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// The Levantine Arabic months named in two words (`كانون الثاني`,
/// January; `تشرين الأول`, October), each made the one English word the
/// token search reads.
fn one_word_months(s: &str) -> std::borrow::Cow<'_, str> {
    const TWO_WORDS: &[(&str, &str)] = &[
        ("كانون الثاني", "january"),
        ("كانون الأول", "december"),
        ("كانون الاول", "december"),
        ("تشرين الأول", "october"),
        ("تشرين الاول", "october"),
        ("تشرين الثاني", "november"),
    ];
    if !s.contains("كانون") && !s.contains("تشرين") {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = s.to_string();
    for (arabic, english) in TWO_WORDS {
        out = out.replace(arabic, english);
    }
    std::borrow::Cow::Owned(out)
}

/// Month names of the other languages gleaner's readers crawl most
/// (German, French, Spanish, Italian, Portuguese, Dutch; Russian, in the
/// genitive that dates use too; Arabic, by its Egyptian and its Levantine
/// names, `آب/اغسطس`), January first. Written out here because no date
/// crate reads free text in them.
const OTHER_MONTHS: [&[&str]; 12] = [
    &[
        "januar",
        "jänner",
        "janvier",
        "enero",
        "gennaio",
        "janeiro",
        "januari",
        "января",
        "январь",
        "يناير",
    ],
    &[
        "februar",
        "février",
        "fevrier",
        "febrero",
        "febbraio",
        "fevereiro",
        "februari",
        "февраля",
        "февраль",
        "فبراير",
        "شباط",
    ],
    &[
        "märz",
        "maerz",
        "mars",
        "marzo",
        "março",
        "marco",
        "maart",
        "марта",
        "март",
        "مارس",
        "آذار",
    ],
    &[
        "avril",
        "abril",
        "aprile",
        "апреля",
        "апрель",
        "أبريل",
        "ابريل",
        "إبريل",
        "نيسان",
    ],
    &[
        "mai", "mayo", "maggio", "maio", "mei", "мая", "май", "مايو", "أيار", "ايار",
    ],
    &[
        "juni",
        "juin",
        "junio",
        "giugno",
        "junho",
        "июня",
        "июнь",
        "يونيو",
        "يونيه",
        "حزيران",
    ],
    &[
        "juli",
        "juillet",
        "julio",
        "luglio",
        "julho",
        "июля",
        "июль",
        "يوليو",
        "يوليه",
        "تموز",
    ],
    &[
        "août",
        "aout",
        "agosto",
        "augustus",
        "августа",
        "август",
        "أغسطس",
        "اغسطس",
        "آب",
    ],
    &[
        "septembre",
        "septiembre",
        "setiembre",
        "settembre",
        "setembro",
        "сентября",
        "сентябрь",
        "سبتمبر",
        "أيلول",
        "ايلول",
    ],
    &[
        "oktober",
        "octobre",
        "octubre",
        "ottobre",
        "outubro",
        "октября",
        "октябрь",
        "أكتوبر",
        "اكتوبر",
    ],
    &[
        "novembre",
        "noviembre",
        "novembro",
        "ноября",
        "ноябрь",
        "نوفمبر",
    ],
    &[
        "dezember",
        "décembre",
        "decembre",
        "diciembre",
        "dicembre",
        "dezembro",
        "декабря",
        "декабрь",
        "ديسمبر",
    ],
];

/// The month (0-11) a word (lowercase, without punctuation) names: in
/// English, written out or cut to three letters or more ("sep",
/// "september"), else in the other languages dates are read in.
fn month_of(t: &str) -> Option<usize> {
    let english = (t.len() >= 3)
        .then(|| MONTHS.iter().position(|m| m.starts_with(t)))
        .flatten();
    english.or_else(|| other_month(t))
}

/// Days of the week in the languages whose month names dates are read in
/// ([`OTHER_MONTHS`]: German, French, Spanish, Italian,
/// Portuguese, Dutch), written out: "Freitag | 14. Juni 2019 | 15:49 VON
/// Sina Giebel". jiff reads English ones only.
const OTHER_WEEKDAYS: &[&str] = &[
    "montag",
    "dienstag",
    "mittwoch",
    "donnerstag",
    "freitag",
    "samstag",
    "sonntag",
    "lundi",
    "mardi",
    "mercredi",
    "jeudi",
    "vendredi",
    "samedi",
    "dimanche",
    "lunes",
    "martes",
    "miércoles",
    "jueves",
    "viernes",
    "sábado",
    "domingo",
    "lunedì",
    "martedì",
    "mercoledì",
    "giovedì",
    "venerdì",
    "sabato",
    "segunda-feira",
    "terça-feira",
    "quarta-feira",
    "quinta-feira",
    "sexta-feira",
    "maandag",
    "dinsdag",
    "woensdag",
    "donderdag",
    "vrijdag",
    "zaterdag",
    "zondag",
];

/// Whether a word (lowercase, without punctuation: "sun", "monday",
/// "freitag") names a day of the week.
pub(crate) fn is_weekday(t: &str) -> bool {
    OTHER_WEEKDAYS.contains(&t)
        || ["%A", "%a"]
            .iter()
            .any(|f| jiff::fmt::strtime::BrokenDownTime::parse(f, t).is_ok())
}

/// Whether a word (lowercase, without punctuation) names a month.
pub(crate) fn is_month(t: &str) -> bool {
    month_of(t).is_some()
}

/// The month (0-11) a word of [`OTHER_MONTHS`] names, written out or cut
/// to three letters or more (`sept`, `déc`, `ago`); a cut word must be
/// some month's only: `ju` is none.
fn other_month(t: &str) -> Option<usize> {
    // English words that cut Portuguese and Italian months (`out`ubro,
    // `set`tembre) would read "sold out 5 ... 2024" as a date.
    if matches!(t, "out" | "set") {
        return None;
    }
    // A word under three letters names a month only written out
    // (Arabic `آب`, August).
    if t.chars().count() < 3 {
        return OTHER_MONTHS.iter().position(|names| names.contains(&t));
    }
    // Arabic months are not cut, and a cut would read Saturday (`سبت`) as
    // September (`سبتمبر`).
    let arabic = |n: &str| n.starts_with(|c: char| ('\u{600}'..='\u{6ff}').contains(&c));
    let mut found = None;
    for (m, names) in OTHER_MONTHS.iter().enumerate() {
        if names
            .iter()
            .any(|n| *n == t || (n.starts_with(t) && !arabic(n)))
        {
            if found.is_some_and(|f| f != m) {
                return None;
            }
            found = Some(m);
        }
    }
    found
}

/// `2024年3月5日` (Chinese, Japanese) or `2024년 3월 5일` (Korean): the
/// number before each of year, month and day's marks.
fn cjk_date(s: &str) -> Option<String> {
    let mut parts = [0i16; 3];
    let mut rest = s;
    for (i, marks) in [['年', '년'], ['月', '월'], ['日', '일']]
        .iter()
        .enumerate()
    {
        let (at, mark) = rest.char_indices().find(|(_, c)| marks.contains(c))?;
        let before = rest[..at].trim_end();
        let start = before.rfind(|c: char| !c.is_ascii_digit()).map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
        parts[i] = before[start..].parse().ok()?;
        rest = &rest[at + mark.len_utf8()..];
    }
    date(
        parts[0],
        i8::try_from(parts[1]).ok()?,
        i8::try_from(parts[2]).ok()?,
    )
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
#[path = "date_tests.rs"]
mod tests;
