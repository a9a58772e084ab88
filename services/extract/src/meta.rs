//! Article metadata: the author, from the metadata or the byline (the
//! date is date.rs's, the title title.rs's).

use crate::byline::{byline_after_a_date, name_in, strip_byline_label, thread_starter};
use crate::tree::near_names;
use gleaner_core::messages::Cleaned;

/// Names in ids and classes that hold a byline.
fn names_byline(path: &str) -> bool {
    // A sign-in box (`#authorization`) names no author.
    let path = path.to_ascii_lowercase().replace("authoriz", "");
    near_names(&path, &["author", "byline", "writer"])
}

/// The author from the page itself: a short block under an element named
/// for the author or byline, or a block that starts with "By "; a bare
/// label ("Written by") takes the name from the block after it; else the
/// text of a `rel="author"` link or the writer a social card names.
pub fn byline_author(c: &Cleaned) -> Option<String> {
    let (above, below) = headline_neighbourhood(c);
    // Some pages hide everything until a script shows them: there, hidden
    // says nothing about a block.
    let (hidden, all) = c.blocks.iter().fold((0u64, 0u64), |(h, a), b| {
        (h + u64::from(b.hidden_len), a + u64::from(b.text_len))
    });
    let hidden_page = hidden * 2 > all;
    // After the headline's neighbourhood: a link marked `rel="author"`,
    // which says more than an author-named element elsewhere on the page
    // (a sign-in box, a comment's author), then a labelled social card's
    // writer (Yoast's "Written by": the post's account, which the byline
    // may correct).
    // A byline naming the site ("By The Planetary Press") names no
    // writer when another one does ("Written by: Julie Mollins"): looked
    // for first, the site's own taken only when none does (a personal
    // blog's, a company's).
    // One pass: the first byline naming the site is kept aside.
    let named = |text: Option<&str>| name_in(text?).map(str::to_string);
    let site_named = std::cell::RefCell::new(None);
    let bylines = |within| byline_in(c, within, hidden_page, &site_named);
    bylines(below)
        .or_else(|| bylines(above))
        .or_else(|| named(c.meta.linked_author.as_deref()))
        .or_else(|| named(c.meta.card_author.as_deref()))
        .or_else(|| bylines(0..usize::MAX))
        .or_else(|| site_named.take())
}

/// The first byline among the blocks numbered in `within` that does not
/// name the site (the first that does is kept in `site_named`); hidden blocks
/// are passed over unless the page is hidden whole (`hidden_page`). Read
/// by the headline first: elsewhere "By Type" heads a menu, "Contributors"
/// labels a menu of sections, a list of other posts says "May 2, 2025 by
/// ..." and a sign-in box is named for authorization.
fn byline_in(
    c: &Cleaned,
    within: std::ops::Range<usize>,
    hidden_page: bool,
    site_named: &std::cell::RefCell<Option<String>>,
) -> Option<String> {
    let (mut after_label, mut after_starter) = (false, false);
    // At most 400 blocks from where the range starts (a headline deep in
    // a page, after a long menu, still has its neighbourhood read).
    let end = within.end.min(within.start.saturating_add(400));
    for b in c.blocks.iter().take(end).skip(within.start) {
        let t = b.text.trim();
        if t.chars().count() > 80 {
            after_label = false;
            continue;
        }
        // A comment form's "Name *" field and hidden text (a tab's label,
        // a widget's) are no bylines.
        if in_a_form(&b.path) || (b.hidden_len * 2 > b.text_len && !hidden_page) {
            after_label = false;
            continue;
        }
        // A copyright line names the owner, not the writer.
        if t.contains('©') {
            after_label = false;
            continue;
        }
        // A forum thread's starter, by login ("Topic Author" then the
        // login in the next block).
        match thread_starter(t) {
            Some("") => {
                after_label = false;
                after_starter = true;
                continue;
            }
            Some(user) => return Some(user.to_string()),
            None if after_starter && (1..=3).contains(&t.split_whitespace().count()) => {
                return Some(t.to_string())
            }
            None => after_starter = false,
        }
        let t = byline_after_a_date(t).unwrap_or(t);
        let labelled = strip_byline_label(t).len() < t.len();
        // An avatar's initials between the label and the name ("Author",
        // "CP", "Chengcheng Pei").
        if after_label && (1..=3).contains(&t.chars().count()) && t.chars().all(char::is_uppercase)
        {
            continue;
        }
        if labelled && menu_or_section_heading(b, t, within.end == usize::MAX) {
            after_label = false;
            continue;
        }
        if after_label || names_byline(&b.path) || labelled {
            // A lone word under an author-named element is more often a
            // label or a heading ("Name", "Modality") than a name.
            let sure = after_label || labelled;
            let names_site = |n: &str| {
                c.meta
                    .site_name
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case(n))
            };
            match name_in(t).filter(|n| sure || n.contains(' ')) {
                Some(name) if names_site(name) => {
                    site_named
                        .borrow_mut()
                        .get_or_insert_with(|| name.to_string());
                }
                Some(name) => return Some(linked_name(b, name).to_string()),
                None => {}
            }
        }
        after_label = labelled && strip_byline_label(t).is_empty();
    }
    None
}

/// A byline's name without the role or affiliation after it, when the
/// block's only link is the name ("Brian Truitt USA TODAY", "Celeste
/// Longacre Gardener & Astrologer": the name links to the author's
/// page, the rest is plain text): the name's first characters, as many
/// as the link holds, if they end a word and read as a name of two words
/// or more.
fn linked_name<'a>(b: &gleaner_core::messages::Block, name: &'a str) -> &'a str {
    let linked = b.link_text_len as usize;
    if b.link_count != 1 || linked == 0 || linked >= name.chars().count() {
        return name;
    }
    let at = name
        .char_indices()
        .nth(linked)
        .map_or(name.len(), |(i, _)| i);
    let (head, rest) = name.split_at(at);
    let ends_a_word = rest.starts_with(char::is_whitespace) || rest.starts_with(',');
    match name_in(head.trim()) {
        Some(n) if ends_a_word && n == head.trim() && n.contains(' ') => n,
        _ => name,
    }
}

/// Whether a block that starts with a byline label is a menu's entry or
/// a section's heading instead ("By Type" over a shop's wine types, "By
/// Functionality" over a list of app types): one word after the label,
/// in a link as a whole or a heading below the headline; read
/// `anywhere` on the page (not by the headline), a link as a whole
/// ("By Wine Region", "By Manufacturer"). By the headline a byline may
/// be one link to the author's page ("By Scott Pletcher").
fn menu_or_section_heading(b: &gleaner_core::messages::Block, text: &str, anywhere: bool) -> bool {
    let all_link = b.text_len > 0 && b.link_text_len >= b.text_len;
    let heading = matches!(b.tag.as_str(), "h2" | "h3" | "h4" | "h5" | "h6");
    let one_word = strip_byline_label(text).split_whitespace().count() == 1;
    (anywhere && all_link) || ((all_link || heading) && one_word)
}

/// Whether a block's path has a `<form>` or `<label>` element.
fn in_a_form(path: &str) -> bool {
    path.split('/').any(|label| {
        let tag = crate::tree::label_tag(label);
        tag == "form" || tag == "label"
    })
}

/// Where a byline sits on a page with a headline, looked at first: the
/// dozen blocks below it (a standfirst, a lead image and its caption may
/// come first), then the three above (a header's menu is often there too). An element named for the author elsewhere is
/// a comment form's "Name" field, a share bar or a sign-in link as often
/// as a byline (readability-articles: "Name *", "AddThis Sharing", "Sign
/// In"), but blogs sign their posts at the end: the rest of the page is
/// read when the neighbourhood has none.
fn headline_neighbourhood(c: &Cleaned) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    match c.blocks.iter().position(|b| b.tag == "h1") {
        Some(h1) => (h1.saturating_sub(3)..h1, h1..h1 + 13),
        None => (0..0, 0..0),
    }
}

/// Metadata that names no one: an e-mail address ("ops@example.com"), a
/// number (a user id), or a template's placeholder left unfilled
/// ("page.head.extra.author", "{{ author }}").
fn names_no_one(author: &str) -> bool {
    let one_word = !author.contains(char::is_whitespace);
    let email = one_word
        && author
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
    // A key path that ends in what it stands for; a login may have dots
    // too ("sara.r.peter").
    let key_path = one_word
        && author.split('.').count() >= 3
        && author
            .rsplit('.')
            .next()
            .is_some_and(|k| matches!(k, "author" | "authors" | "name" | "creator" | "byline"))
        && author.split('.').all(|k| {
            k.starts_with(|c: char| c.is_ascii_lowercase())
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
    email || key_path || author.contains(['{', '}']) || author.chars().all(|c| c.is_ascii_digit())
}

/// The host and path of an author given as a URL ("https://lobste.rs/~x",
/// "www.facebook.com/x"), if it is one.
fn profile_url(author: &str) -> Option<&str> {
    let rest = author
        .strip_prefix("https://")
        .or_else(|| author.strip_prefix("http://"))
        .or_else(|| author.starts_with("www.").then_some(author))?;
    let host = rest.split('/').next()?;
    (host.contains('.') && !rest.contains(char::is_whitespace)).then_some(rest)
}

/// The login a profile's URL ends in: its last path segment without a
/// `~` or `@` before it, if it reads as one (letters, digits, dots,
/// dashes, underscores; not a page's name such as "index.html", nor a
/// number).
fn login_in(profile: &str) -> Option<&str> {
    let path = profile.split(['?', '#']).next()?;
    let last = path.split('/').skip(1).filter(|p| !p.is_empty()).last()?;
    let login = last.trim_start_matches(['~', '@']);
    let reads = (2..=40).contains(&login.len())
        && login
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && !login.bytes().all(|b| b.is_ascii_digit())
        && !login.contains(".htm")
        && !login.ends_with(".php");
    reads.then_some(login)
}

/// Whether a profile's URL (host and path) is on the page's own site.
fn on_the_site(c: &Cleaned, profile: &str) -> bool {
    let domain = |host: &str| gleaner_core::util::registered_domain(host);
    let host = profile.split('/').next().unwrap_or("");
    let page_host = gleaner_core::util::host_of(c.address());
    !page_host.is_empty() && domain(host) == domain(&page_host)
}

/// Whether a login is the site's own account (a publisher's Facebook
/// page, "allrecipes" on allrecipes.com): its letters start with the
/// host's name or are the site's.
fn names_the_site(c: &Cleaned, login: &str) -> bool {
    let login = crate::title::squeezed(login);
    crate::title::host_name(c).is_some_and(|h| login.starts_with(&h))
        || c.meta
            .site_name
            .as_deref()
            .is_some_and(|s| crate::title::squeezed(s) == login)
}

/// Whether metadata is a name's initials only: two to five capital
/// letters, one word ("AFP", "DPA", "EFE").
fn is_an_acronym(author: &str) -> bool {
    (2..=5).contains(&author.chars().count()) && author.chars().all(|c| c.is_uppercase())
}

/// Metadata that is an account's login ("kffnirmitap", "andrew.keaveney"):
/// one word of lowercase Latin letters, digits, dots, dashes and
/// underscores, which a byline on the page may put a name to.
fn is_a_login(author: &str) -> bool {
    author.bytes().any(|b| b.is_ascii_lowercase())
        && author
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b".-_".contains(&b))
}

/// The page's author: the metadata's, unless it is only the site's name,
/// a bare label or written as a byline ("By Jane Doe") and the page shows a
/// byline; else the author box's portrait's ("Headshot of Doris
/// Munoz-Mantilla": `pictured_author`), when nothing else names anyone.
pub fn author(c: &Cleaned) -> Option<String> {
    named_author(c).or_else(|| name_in(c.meta.pictured_author.as_deref()?).map(str::to_string))
}

/// [`author`] from the metadata and the page's text.
fn named_author(c: &Cleaned) -> Option<String> {
    let Some(meta) = c
        .meta
        .author
        .as_deref()
        .map(|a| a.trim_start_matches([',', ';', ' ']).trim())
        .filter(|a| !a.is_empty() && !names_no_one(a))
    else {
        return byline_author(c);
    };
    // A profile's URL names an account: a byline's name first, else the
    // login of a member's profile on the site itself
    // ("https://lobste.rs/~scvalex" on lobste.rs is scvalex); a profile
    // elsewhere (a Facebook page) is more often the publisher's account.
    if let Some(profile) = profile_url(meta) {
        return byline_author(c).or_else(|| {
            Some(profile)
                .filter(|p| on_the_site(c, p))
                .and_then(login_in)
                .filter(|login| !names_the_site(c, login))
                .map(str::to_string)
        });
    }
    let is_site = c
        .meta
        .site_name
        .as_deref()
        .is_some_and(|s| s.eq_ignore_ascii_case(meta));
    match strip_byline_label(meta) {
        // A bare label names no one.
        "" => byline_author(c),
        // Metadata written as a byline ("By Jane Doe") is less sure than
        // the page's own byline; "Contributors to Wikimedia projects" has
        // no name after its label and is kept as written.
        rest if rest.len() < meta.len() => byline_author(c)
            .or_else(|| name_in(rest).map(str::to_string))
            .or_else(|| Some(meta.to_string())),
        _ if is_site => byline_author(c).or_else(|| Some(meta.to_string())),
        // A login, or on an article an agency's initials ("AFP", "DPA":
        // what a template fills in for wire copy; on a listing, a
        // station's call sign, "WRAL", over other stories' bylines), gives
        // way to a byline's full name only.
        _ if is_a_login(meta) || (is_an_acronym(meta) && crate::boundary::declared(c)) => {
            byline_author(c)
                .filter(|name| name.contains(' '))
                .or_else(|| Some(meta.to_string()))
        }
        _ => Some(meta.to_string()),
    }
}

#[cfg(test)]
#[path = "meta_tests.rs"]
pub(crate) mod tests;
