//! The people an author line names, as a list: "Dana A. Ford, James S.A.
//! Corey, Chien-Ming Wang, and Tom Watkins, CNN" is four writers and their
//! network. Written by hand: a byline is free text, and its separators
//! (commas, "and", "und", "et", "y", "、") are this project's reading of
//! it, not a format any crate parses.

/// Words that join the last two names of a list, in the languages the
/// byline labels cover (`byline.rs`). A name may hold one ("José Ortega y
/// Gasset"), so a line is split at one only between two names of two
/// words or more.
const AND: &[&str] = &["and", "&", "und", "et", "y", "e", "en"];

/// Particles a name may hold in lower case ("Ludwig van Beethoven").
const PARTICLES: &[&str] = &[
    "de", "da", "di", "du", "van", "von", "der", "den", "del", "della", "la", "le", "bin", "ibn",
    "al", "el", "dos", "das", "do",
];

/// Words no name begins with: a list's part that begins with one is a
/// role or a source ("From Masculindians", "The Commercial Appeal").
const NOT_FIRST: &[&str] = &["from", "the", "by", "for", "at", "in", "with", "of", "and"];

/// The people `author` names, in its order, each once, without the agency
/// or network a line may end with (a part that is `site`, or a single
/// word in capitals: "CNN", "AP", "AFP"). A line is returned whole when
/// it names fewer than two people ("Doe, Jane" is one person written
/// surname first: a comma splits only parts of two words or more), or
/// when any part it would split into does not read as a name
/// ([`a_name`]): a role after the name ("Benjamin Johnson, Sr. Director
/// of Operations"), a parenthesis, a label ("design: ..."), a number.
pub fn people(author: &str, site: Option<&str>) -> Vec<String> {
    let whole = || vec![author.trim().to_string()];
    if author.contains([':', '(', ')']) || author.contains("...") {
        return whole();
    }
    let words = |s: &str| s.split_whitespace().count();
    let parts: Vec<&str> = author
        .split([';', '、', '，'])
        .flat_map(|part| {
            let by_comma: Vec<&str> = part.split(',').map(str::trim).collect();
            // "Doe, Jane": a comma between single words is no list.
            let names = by_comma.iter().filter(|p| words(p) >= 2).count();
            if names >= 2 {
                by_comma
            } else {
                vec![part.trim()]
            }
        })
        .flat_map(split_at_and)
        .map(|p| strip_and(p).trim())
        .filter(|p| !p.is_empty())
        .collect();
    let agency = |p: &str| {
        site.is_some_and(|s| p.eq_ignore_ascii_case(s.trim()))
            || (words(p) == 1
                && p.chars().filter(|c| c.is_alphabetic()).count() >= 2
                && p.chars().all(|c| !c.is_alphabetic() || c.is_uppercase()))
    };
    let people: Vec<&str> = parts.iter().copied().filter(|p| !agency(p)).collect();
    if !people.iter().all(|p| a_name(p)) {
        return whole();
    }
    let mut names: Vec<String> = Vec::new();
    for p in people {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(p)) {
            names.push(p.to_string());
        }
    }
    if names.len() < 2 {
        return whole();
    }
    names
}

/// Whether a part of a list reads as a person's name: two to four words,
/// each capitalised but for particles ([`PARTICLES`]), the first no
/// function word ([`NOT_FIRST`]), no digit nor comma; or a Chinese or
/// Japanese name ([`crate::byline::a_cjk_name`]: "山田太郎").
fn a_name(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    if words.len() == 1 {
        return crate::byline::a_cjk_name(part);
    }
    let capitalised =
        |w: &&str| w.chars().next().is_some_and(char::is_uppercase) || PARTICLES.contains(w);
    (2..=4).contains(&words.len())
        && words.iter().all(capitalised)
        && !NOT_FIRST.contains(&words[0].to_lowercase().as_str())
        && !part.chars().any(|c| c.is_ascii_digit() || c == ',')
}

/// "Ana García y Pedro López" split at its "y" when both sides are names
/// of two words or more; else the part whole.
fn split_at_and(part: &str) -> Vec<&str> {
    let words = |s: &str| s.split_whitespace().count();
    for and in AND {
        let joint = format!(" {and} ");
        for (at, _) in part.match_indices(&joint) {
            let (left, right) = (&part[..at], &part[at + joint.len()..]);
            if words(left) >= 2 && words(right) >= 2 {
                return vec![left.trim(), right.trim()];
            }
        }
    }
    vec![part]
}

/// A list's last name without the "and" before it (", and Tom Watkins").
fn strip_and(part: &str) -> &str {
    let trimmed = part.trim_start();
    AND.iter()
        .find_map(|a| {
            let rest = trimmed.get(a.len()..)?;
            (trimmed[..a.len()].eq_ignore_ascii_case(a) && rest.starts_with(' ')).then_some(rest)
        })
        .unwrap_or(part)
}

#[cfg(test)]
mod tests {
    use super::people;

    #[test]
    fn a_line_of_authors_is_a_list_of_people() {
        assert_eq!(
            people(
                "Dana A. Ford, James S.A. Corey, Chien-Ming Wang, and Tom Watkins, CNN",
                None
            ),
            [
                "Dana A. Ford",
                "James S.A. Corey",
                "Chien-Ming Wang",
                "Tom Watkins"
            ]
        );
        assert_eq!(
            people("Jared Newman and Sam Singleton", None),
            ["Jared Newman", "Sam Singleton"]
        );
        assert_eq!(
            people("Anna Schmidt und Jonas Weber", None),
            ["Anna Schmidt", "Jonas Weber"]
        );
        assert_eq!(
            people("Marie Dupont et Luc Martin", None),
            ["Marie Dupont", "Luc Martin"]
        );
        assert_eq!(
            people("Ana García y Pedro López; Ana García", None),
            ["Ana García", "Pedro López"]
        );
        assert_eq!(people("山田太郎、佐藤花子", None), ["山田太郎", "佐藤花子"]);
        // The publication at the end is no person.
        assert_eq!(
            people("Mara Olsen, Ken Ito, Harbour Times", Some("Harbour Times")),
            ["Mara Olsen", "Ken Ito"]
        );
    }

    #[test]
    fn one_person_stays_one_line() {
        assert_eq!(people("Mara Olsen", None), ["Mara Olsen"]);
        // Surname first.
        assert_eq!(people("Doe, Jane", None), ["Doe, Jane"]);
        // A conjunction inside a name.
        assert_eq!(
            people("José Ortega y Gasset", None),
            ["José Ortega y Gasset"]
        );
        assert_eq!(people("Tom Watkins, CNN", None), ["Tom Watkins, CNN"]);
        assert_eq!(people("Simon & Schuster", None), ["Simon & Schuster"]);
        // A role, a source, a parenthesis or a label after a name.
        for line in [
            "Benjamin Johnson, Sr. Director of Operations, Atlas Van Lines",
            "Tomson Highway, From Masculindians",
            "Manoj Jain and Jagpreet Chhatwal, The Commercial Appeal",
            "Martin Untersinger (avec Damien Leloup et Morgane Tual)",
            "content: MarketingSherpa, design: Scott McDaniel",
            "Mara Olsen and Ken Ito, Reuters",
        ] {
            assert_eq!(people(line, None), [line]);
        }
    }
}
