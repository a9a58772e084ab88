//! The article's title: its headline (an `<h1>` the page's titles bear
//! out), else `og:title` or `<title>` with the site's name cut off.

use gleaner_core::messages::Cleaned;

const TITLE_SEPARATORS: &[&str] = &[
    " | ", " - ", " – ", " — ", " :: ", " · ", " • ", " » ", " / ",
];

/// The article title: of the page's first three `<h1>`s, the one sharing
/// the most words with the `<title>` and `og:title` (at least half of its
/// own), unless it is the site's heading rather than the article's: all
/// its words in `og:site_name`, or nothing in common with an `og:title`
/// (the publisher's title for the article, which a blog's or a paper's
/// name above the article is not), or all in the last part of that title
/// (else the `<title>`) and none in the rest ("痞客邦 PIXNET" in "Story ::
/// 痞客邦 PIXNET ::"), or all in that last part and under a third of the
/// rest's words ("Arch Linux" in "Story about Arch Linux / Arch Linux
/// Forums"). Else `og:title` or `<title>` with the
/// site name cut off. Both titles usually add the site name, and sometimes
/// shorten or reword the headline.
pub fn page_title(c: &Cleaned) -> String {
    page_title_of(c, false)
}

/// [`page_title`], told whether the page's `<title>` is the site's own
/// (the same on its other pages: `title_repeats`). Then the titles say
/// nothing of the article, and the first of the first three `<h1>`s that
/// is not the site's name is its headline.
pub(crate) fn page_title_of(c: &Cleaned, title_repeats: bool) -> String {
    let words = word_set;
    if title_repeats {
        let site_name = c.meta.site_name.as_deref().unwrap_or("");
        let site = words(site_name);
        let title = words(&c.title);
        let h1s: Vec<_> = h1_texts(c).take(3).collect();
        let own = h1s.iter().map(|t| heading_text(t)).find(|h| {
            let heading = words(h);
            !heading.is_empty()
                && !heading
                    .iter()
                    .all(|w| site.contains(w) || title.contains(w))
        });
        if let Some(h1) = own {
            return without_site_suffix(h1, site_name, last_part(&c.title)).to_string();
        }
    }
    titled(c)
}

/// The text of each of the page's `<h1>` elements, in order: the blocks
/// a `<br>` split one into (the same element, one after another: a
/// poster headline set "WEEKEND<br>CODING<br>AGENT") joined by a space,
/// while most words of the next are in the page's titles (a byline set
/// in the headline's element under a `<br>`, Nikkei's "編集委員 中沢克二",
/// is not the headline's).
fn h1_texts(c: &Cleaned) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    let blocks = &c.blocks;
    let titles = word_set(&format!(
        "{} {}",
        c.title,
        c.meta.og_title.as_deref().unwrap_or("")
    ));
    let in_titles = move |text: &str| {
        let words = gleaner_text::words(text);
        !words.is_empty() && words.iter().filter(|w| titles.contains(*w)).count() * 2 >= words.len()
    };
    let element = |i: usize| blocks[i].ancestors.last().copied();
    (0..blocks.len())
        .filter(move |&i| {
            blocks[i].tag == "h1"
                && (i == 0 || blocks[i - 1].tag != "h1" || element(i - 1) != element(i))
        })
        .map(move |i| {
            let parts = 1 + blocks[i + 1..]
                .iter()
                .take_while(|b| {
                    b.tag == "h1" && b.ancestors.last().copied() == element(i) && in_titles(&b.text)
                })
                .count();
            match parts {
                1 => std::borrow::Cow::Borrowed(blocks[i].text.as_str()),
                n => std::borrow::Cow::Owned(
                    blocks[i..i + n]
                        .iter()
                        .map(|b| b.text.trim())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            }
        })
}

/// The distinct words of a text.
fn word_set(s: &str) -> rustc_hash::FxHashSet<String> {
    gleaner_text::words(s).into_iter().collect()
}

/// [`page_title`] of a page whose `<title>` may be the article's.
fn titled(c: &Cleaned) -> String {
    let words = word_set;
    let og = og_title(c);
    let site = c.meta.site_name.as_deref().unwrap_or("");
    let og_words = words(og.unwrap_or(""));
    // "Story :: Site ::": the words of the last part and of the rest.
    let published = og
        .unwrap_or(&c.title)
        .trim()
        .trim_end_matches([':', '|', ' ']);
    // "Story [Site]": the bracketed name is the last part.
    let bracketed = published
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once(" ["))
        .filter(|(story, name)| !story.trim().is_empty() && !name.contains('['));
    let (rest, last) = bracketed
        .into_iter()
        .chain(last_split(published))
        .max_by_key(|(rest, _)| rest.len())
        .map_or(
            (
                rustc_hash::FxHashSet::default(),
                rustc_hash::FxHashSet::default(),
            ),
            |(r, l)| (words(r), words(l)),
        );
    let titles = words(&format!("{} {}", c.title, og.unwrap_or("")));
    let site_words = words(site);
    // The heading sharing the most words with the titles; on a tie, the
    // one with more of them in the title's first part (where the headline
    // is; "Evolve: Shared Mutable History — evolve extension for
    // Mercurial" over a project's heading "evolve extension for
    // Mercurial").
    let mut best: Option<((usize, usize), &str)> = None;
    let h1s: Vec<_> = h1_texts(c).take(3).collect();
    for h1 in h1s.iter().map(|t| heading_text(t)) {
        let heading = words(h1);
        let shared = heading.iter().filter(|w| titles.contains(*w)).count();
        let in_rest = heading.iter().filter(|w| rest.contains(*w)).count();
        // All its words but one in the site's part, none in the rest: the
        // site's heading ("Archive of Our Own beta" for "... [Archive of
        // Our Own]").
        let outside_last = heading.iter().filter(|w| !last.contains(*w)).count();
        // Or all its words in the site's part and little of the rest: the
        // site's heading where the story names the site too ("Arch Linux"
        // for "What happened with Arch Linux ISO in 2024 / Arch Discussion
        // / Arch Linux Forums").
        let the_sites = heading.iter().all(|w| site_words.contains(w))
            || (og.is_some() && !heading.iter().any(|w| og_words.contains(w)))
            || (!last.is_empty()
                && outside_last <= 1
                && outside_last < heading.len()
                && in_rest == 0)
            || (!last.is_empty() && outside_last == 0 && in_rest * 3 < rest.len());
        if heading.is_empty() || the_sites || shared * 2 < heading.len() {
            continue;
        }
        if best.is_none_or(|(most, _)| (shared, in_rest) > most) {
            best = Some(((shared, in_rest), h1));
        }
    }
    match best {
        Some((_, h1)) => {
            let headline = without_site_suffix(h1, site, last_part(&c.title));
            let headline = without_label(headline, og.unwrap_or(""), &c.title);
            as_the_titles_write_it(headline, og.unwrap_or(""), &c.title).to_string()
        }
        None => title_with(c, |_, _, _| false),
    }
}

/// A headline without the few words set before it in the `<h1>` that
/// neither title has: a label ("Thread: ...", arXiv's "Title:..."), a
/// date ("Dec 18 2025 Preparing a transition"), a section's name ("Blog:
/// Best Social Media ..."), when a title, or a title before its last
/// part (the site's name), is the rest of the heading: three words at
/// least, starting as a headline does (not in lower case), after a label
/// that is more than a lone short word ("The Best Home Security Cameras"
/// keeps its "The").
fn without_label<'a>(headline: &'a str, og: &'a str, title: &'a str) -> &'a str {
    const MOST_LABEL_WORDS: usize = 4;
    title_forms(og, title)
        .filter(|t| gleaner_text::word_count(t) >= 3 && t.len() < headline.len())
        .filter_map(|t| {
            let at = headline.len().checked_sub(t.len())?;
            let tail = headline.get(at..)?;
            if tail.starts_with(char::is_lowercase) || tail.to_lowercase() != t.to_lowercase() {
                return None;
            }
            let head = headline[..at].trim_end();
            let glued = !headline[..at].ends_with(char::is_whitespace);
            // The label ends where the headline starts: at a space, or
            // glued only after a colon ("Title:AlignMerge").
            let ends = !head.is_empty() && (!glued || head.ends_with(':'));
            let label = head.trim_end_matches([':', '-', '–', '—', '|', ' ']);
            let lone_short_word = !head.ends_with(':')
                && gleaner_text::word_count(label) == 1
                && label.chars().count() <= 3
                && label.chars().all(char::is_alphabetic);
            (ends
                && !lone_short_word
                && gleaner_text::word_count(label) <= MOST_LABEL_WORDS
                && !title.contains(label)
                && !og.contains(label))
            .then_some(tail)
        })
        .max_by_key(|t| t.len())
        .unwrap_or(headline)
}

/// A headline set in capitals ("WEEKEND CODING AGENT", a style more
/// than a spelling) as the page's titles write it, when one of them, or
/// its part before the site's name, is the same words in another case.
fn as_the_titles_write_it<'a>(headline: &'a str, og: &'a str, title: &'a str) -> &'a str {
    let shouting =
        headline.chars().any(char::is_alphabetic) && !headline.chars().any(char::is_lowercase);
    if !shouting {
        return headline;
    }
    title_forms(og, title)
        .find(|t| t.to_lowercase() == headline.to_lowercase())
        .unwrap_or(headline)
}

/// The ways the page's titles may write its headline: `og:title` and
/// `<title>` whole, then each before its last part (the site's name).
fn title_forms<'a>(og: &'a str, title: &'a str) -> impl Iterator<Item = &'a str> {
    let headline_part = |t: &'a str| last_split(t.trim()).map(|(rest, _)| rest.trim());
    [og.trim(), title.trim()]
        .into_iter()
        .chain(headline_part(og))
        .chain(headline_part(title))
}

/// A title split before its last part at the title separator that
/// leaves the longest rest ("Story » Section" and "Site" in "Story »
/// Section » Site").
fn last_split(title: &str) -> Option<(&str, &str)> {
    TITLE_SEPARATORS
        .iter()
        .filter_map(|sep| title.rsplit_once(sep))
        .max_by_key(|(rest, _)| rest.len())
}

/// The last part of a `<title>` ([`last_split`]), or "" when it has none.
fn last_part(title: &str) -> &str {
    last_split(title.trim()).map_or("", |(_, last)| last)
}

/// A headline without the site's name at its end, where the heading holds
/// both: the page's logo link set right after the headline, its text
/// glued to the headline's ("... de la InfantaUltima Hora Mallorca", the
/// `<title>` ending "» Ultima Hora Mallorca"), or the site's declared
/// name (`og:site_name`) after a title separator. `last_part` is the
/// `<title>`'s ([`last_part`]). A title's last part after a separator
/// stays (a headline's own subtitle, "Content Depth — Write
/// Comprehensively About Your Core Topics", has the same shape as a
/// site's name), and so does a name after a plain space ("Everything new
/// from Apple" on apple.com is the headline).
fn without_site_suffix<'a>(heading: &'a str, site: &str, last_part: &str) -> &'a str {
    let ends_with = |name: &str| -> Option<&'a str> {
        let at = heading.len().checked_sub(name.len())?;
        (!name.is_empty()
            && heading.is_char_boundary(at)
            && heading[at..].eq_ignore_ascii_case(name))
        .then(|| &heading[..at])
    };
    let glued = |head: &&str| head.chars().next_back().is_some_and(char::is_alphanumeric);
    let from_site = ends_with(site.trim()).and_then(|head| {
        TITLE_SEPARATORS
            .iter()
            .find_map(|sep| head.strip_suffix(sep))
            .or(Some(head).filter(glued))
    });
    let from_title = || ends_with(last_part.trim()).filter(glued);
    match from_site.or_else(from_title) {
        Some(head) if gleaner_text::word_count(head) > 0 => head.trim_end(),
        _ => heading,
    }
}

/// The page's `og:title`, if it has a non-empty one.
fn og_title(c: &Cleaned) -> Option<&str> {
    c.meta
        .og_title
        .as_deref()
        .map(str::trim)
        .filter(|o| !o.is_empty())
}

/// A heading's text without a documentation permalink sign at its end.
fn heading_text(text: &str) -> &str {
    text.trim().trim_end_matches(['¶', '#']).trim_end()
}

/// The title the shipped models were trained with (for the title-similarity
/// features): the first `<h1>` only when the `<title>` or `og:title`
/// contains it verbatim. Retrained on [`page_title`] (as it was then)
/// instead, `auto` scored 0.8339 against 0.8358 (cross-validated), so the
/// features keep this one. It cuts a part naming the host as the
/// article's title does: retrained
/// without that cut, `auto` scored 0.8725 against 0.8748 cross-validated.
pub(crate) fn feature_title(c: &Cleaned) -> String {
    title_with(c, |h1, raw, og| {
        !h1.is_empty() && (raw.contains(h1) || og.is_some_and(|o| o.contains(h1)))
    })
}

/// The `<h1>` when `use_h1(h1, title, og_title)` says so, else `og:title`
/// or `<title>` with the site name cut off (and a part naming the host,
/// [`without_host_part`]).
fn title_with(c: &Cleaned, use_h1: impl Fn(&str, &str, Option<&str>) -> bool) -> String {
    let raw = c.title.trim();
    let site = c.meta.site_name.as_deref().unwrap_or("");
    let og = og_title(c);
    let first = h1_texts(c).next();
    // Documentation headings end in a permalink sign.
    let h1 = first.as_deref().map(heading_text);
    if let Some(h1) = h1 {
        if use_h1(h1, raw, og) {
            return h1.to_string();
        }
    }
    let host = host_name(c);
    let titled = |t: &str| strip_site_name(without_host_part(t, host.as_deref()), site);
    match og {
        Some(og) => titled(og),
        None if !raw.is_empty() => titled(raw),
        None => h1.unwrap_or_default().to_string(),
    }
}

/// The name a page's host goes by: the first label of its registered
/// domain ("newegg" for promotions.newegg.com), of three characters or
/// more.
pub(crate) fn host_name(c: &Cleaned) -> Option<String> {
    let host = gleaner_core::util::host_of(c.address());
    let domain = gleaner_core::util::registered_domain(&host);
    let label = domain.split('.').next()?;
    (label.len() >= 3).then(|| label.to_string())
}

/// A part's letters and digits run together, in lower case ("Newegg.com"
/// is "neweggcom").
pub(crate) fn squeezed(part: &str) -> String {
    part.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A title without its last part when that part names the host (its
/// letters run together start with the host's name: "Newegg.com",
/// "WRAL", "Mike Khorev" on mikekhorev.com, "Aura Official Site"): the
/// site's name where `og:site_name` does not give it. The rest must not
/// start with it too ("Nintendo Switch - OLED Model" on nintendo.com is a
/// product's name). A first part that is the host's name and nothing
/// else goes too ("SoundStageXperience.com - The Five Best ..."); one
/// that goes on is the headline's ("Digjitale Signal #18 – The World
/// Without Work?").
fn without_host_part<'a>(title: &'a str, host: Option<&str>) -> &'a str {
    let trimmed = title.trim();
    let Some(host) = host else {
        return title;
    };
    let names_host = |part: &str| squeezed(part).starts_with(host);
    let is_host = |part: &str| {
        let s = squeezed(part);
        s == host
            || (s.starts_with(host) && part.trim().contains('.') && !part.trim().contains(' '))
    };
    if let Some((rest, last)) = last_split(trimmed) {
        if names_host(last) && !names_host(rest) && gleaner_text::word_count(rest) > 0 {
            return rest.trim();
        }
    }
    let first_split = TITLE_SEPARATORS
        .iter()
        .filter_map(|sep| trimmed.split_once(sep))
        .min_by_key(|(first, _)| first.len());
    match first_split {
        Some((first, rest)) if is_host(first) && gleaner_text::word_count(rest) > 0 => rest.trim(),
        _ => title,
    }
}

/// The site's name as the `<title>` gives it beside the headline ("Story |
/// Site", "Site - Story", "Story [Site]"), for pages whose metadata names
/// no site: the part at either end that the headline is not, of four words
/// or fewer (as trafilatura takes a site's name from its title).
pub(crate) fn site_name_in_title(c: &Cleaned, headline: &str) -> Option<String> {
    let words = gleaner_text::words;
    let headline = words(headline);
    let is_headline = |part: &str| !headline.is_empty() && words(part) == headline;
    let named = |part: &str| {
        let part = part.trim();
        let n = gleaner_text::word_count(part);
        ((1..=4).contains(&n) && !is_headline(part)).then(|| part.to_string())
    };
    let title = c.title.trim().trim_end_matches([':', '|', ' ']);
    if let Some((story, name)) = title.strip_suffix(']').and_then(|t| t.rsplit_once(" [")) {
        if is_headline(story) {
            return named(name);
        }
    }
    TITLE_SEPARATORS.iter().find_map(|sep| {
        let (first, rest) = title.split_once(sep)?;
        let (before, last) = title.rsplit_once(sep)?;
        if is_headline(before) {
            named(last)
        } else if is_headline(rest) {
            named(first)
        } else {
            None
        }
    })
}

/// Cuts the site name off a title: `Story | Site`, `Site - Story` and
/// `Story [Site]` give `Story`. A part is taken for the site name when it equals `site_name` or
/// is short (four words or fewer) beside a longer part.
pub fn strip_site_name(title: &str, site_name: &str) -> String {
    // "Story :: Site ::": a separator left at the end is no part.
    let title = title.trim().trim_end_matches([':', '|', ' ']);
    // "Story [Site]": a bracketed name at the end is the site's.
    let title = match title.strip_suffix(']').and_then(|t| t.rsplit_once(" [")) {
        Some((story, name)) if !story.trim().is_empty() && !name.contains('[') => story,
        _ => title,
    };
    for sep in TITLE_SEPARATORS {
        if !title.contains(sep) {
            continue;
        }
        let parts: Vec<&str> = title
            .split(sep)
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        // A CJK character counts as a word: "港口大桥经过八个月维修后重新开放"
        // is the longer part beside "Quay Notes".
        let words = gleaner_text::word_count;
        // The longest part that is not the site's name.
        let Some(main) = parts
            .iter()
            .copied()
            .filter(|p| !p.eq_ignore_ascii_case(site_name))
            .max_by_key(|p| words(p))
        else {
            continue;
        };
        let others_are_site = parts.iter().all(|p| {
            *p == main
                || p.eq_ignore_ascii_case(site_name)
                || (words(p) <= 4 && words(p) < words(main))
        });
        if others_are_site && parts.len() > 1 {
            return main.to_string();
        }
        return title.trim().to_string();
    }
    title.trim().to_string()
}

#[cfg(test)]
#[path = "title_tests.rs"]
mod tests;
