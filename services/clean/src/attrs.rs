//! What an element's attributes say: its label (id and classes), whether
//! the page hides it, and whether its ARIA role is page chrome.

use std::borrow::Cow;

/// What an element's attributes tell clean: its `id` and `class` as
/// written (entities and all, as `get_attribute` gives them), and whether
/// the page hides it or gives it a chrome ARIA role, and its `itemprop`.
#[derive(Default)]
pub(crate) struct Attrs<'a> {
    pub(crate) id: Option<Cow<'a, str>>,
    pub(crate) class: Option<Cow<'a, str>>,
    pub(crate) hidden: bool,
    pub(crate) chrome_role: bool,
    /// Its microdata property names (`itemprop`), as written.
    pub(crate) itemprop: Option<Cow<'a, str>>,
    /// Its microdata type (`itemtype`), as written.
    pub(crate) itemtype: Option<Cow<'a, str>>,
    /// Whether its `rel` names the author (`<a rel="author">`).
    pub(crate) rel_author: bool,
    /// Whether it is MediaWiki's "[edit]" link beside each section's
    /// heading (`mw-editsection`): the markup of every MediaWiki site
    /// (Wikipedia, Fandom, a project's wiki), a control and no text, read
    /// as "Software[edit]" in the heading it sits in.
    pub(crate) edit_link: bool,
}

/// ARIA roles of page chrome: landmarks around the content, and dialogs
/// and menus that float over it.
pub(crate) fn is_chrome_role(role: &str) -> bool {
    role.split_ascii_whitespace().next().is_some_and(|r| {
        [
            "navigation",
            "banner",
            "contentinfo",
            "complementary",
            "search",
            "menu",
            "menubar",
            "dialog",
            "alertdialog",
            "tooltip",
        ]
        .iter()
        .any(|c| r.eq_ignore_ascii_case(c))
    })
}

/// Whether an inline style hides the element.
pub(crate) fn style_hides(style: &str) -> bool {
    // Most styles say neither word: no copy for them.
    let says = |w: &[u8]| {
        style
            .as_bytes()
            .windows(w.len())
            .any(|x| x.eq_ignore_ascii_case(w))
    };
    if !says(b"none") && !says(b"hidden") {
        return false;
    }
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// Whether class names hide the element the way the common CSS frameworks
/// and CMSs name it (`d-none`, `hidden`, `sr-only`, `visually-hidden`,
/// ...), unless a responsive class shows it again on wider screens
/// (`md:block`, `d-lg-flex`).
pub(crate) fn classes_hide(class: &str) -> bool {
    const HIDING: [&str; 10] = [
        "hidden",
        "d-none",
        "hide",
        "is-hidden",
        "invisible",
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "element-invisible",
    ];
    let shown_wider = |c: &str| {
        let display = c
            .rsplit_once([':', '-'])
            .is_some_and(|(_, d)| matches!(d, "block" | "flex" | "inline" | "grid" | "table"));
        display && (c.contains(':') || (c.starts_with("d-") && c.matches('-').count() == 2))
    };
    let mut hides = false;
    for c in class.split_ascii_whitespace() {
        if shown_wider(c) {
            return false;
        }
        hides |= HIDING.iter().any(|h| c.eq_ignore_ascii_case(h));
    }
    hides
}

/// An element's attributes as (name, value), sliced from the page by
/// their source locations: no allocation, where each `get_attribute`
/// call lowercases the name and copies the value. Values are as written,
/// entities and all.
pub(crate) fn attributes<'a, 'e>(
    el: &'e lol_html::html_content::Element,
    html: &'a str,
) -> impl Iterator<Item = (Cow<'a, str>, Cow<'a, str>)> + 'e
where
    'a: 'e,
{
    el.attributes().iter().map(move |a| {
        let located = a
            .name_source_location()
            .zip(a.value_source_location())
            .and_then(|(n, v)| Some((html.get(n.bytes())?, html.get(v.bytes())?)));
        match located {
            Some((n, v)) => (Cow::Borrowed(n), Cow::Borrowed(v)),
            None => (Cow::Owned(a.name()), Cow::Owned(a.value())),
        }
    })
}

/// An element's [`Attrs`], read in one pass over its [`attributes`].
pub(crate) fn attrs_of<'a>(el: &lol_html::html_content::Element, html: &'a str) -> Attrs<'a> {
    let mut out = Attrs::default();
    for (name, value) in attributes(el, html) {
        if out.id.is_none() && name.eq_ignore_ascii_case("id") {
            out.id = Some(value);
        } else if out.class.is_none() && name.eq_ignore_ascii_case("class") {
            out.hidden |= classes_hide(&value);
            out.edit_link = value
                .split_ascii_whitespace()
                .any(|c| c == "mw-editsection");
            out.class = Some(value);
        } else if name.eq_ignore_ascii_case("hidden") {
            out.hidden = true;
        } else if name.eq_ignore_ascii_case("aria-hidden") {
            out.hidden |= value.trim().eq_ignore_ascii_case("true");
        } else if name.eq_ignore_ascii_case("style") {
            out.hidden |= style_hides(&value);
        } else if name.eq_ignore_ascii_case("role") {
            out.chrome_role = is_chrome_role(&value);
        } else if name.eq_ignore_ascii_case("itemprop") {
            out.itemprop = Some(value);
        } else if name.eq_ignore_ascii_case("itemtype") {
            out.itemtype = Some(value);
        } else if name.eq_ignore_ascii_case("rel") {
            out.rel_author = value
                .split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("author"));
        }
    }
    out
}

/// Appends an element's label in a tag path, `tag#id.class1.class2.class3`, with
/// characters that would break the path (`/`, `#`, `.`) left out of names.
pub(crate) fn push_label(out: &mut String, tag: &str, id: Option<&str>, class: Option<&str>) {
    let push_clean = |l: &mut String, s: &str| {
        // Most names are short and clean: copied whole.
        if s.len() <= 40 && !s.contains(['/', '#', '.']) {
            l.push_str(s);
        } else {
            l.extend(s.chars().filter(|c| !matches!(c, '/' | '#' | '.')).take(40));
        }
    };
    out.push_str(tag);
    if let Some(id) = id.and_then(|s| s.split_whitespace().next()) {
        out.push('#');
        push_clean(out, id);
    }
    for c in class.unwrap_or("").split_whitespace().take(3) {
        out.push('.');
        push_clean(out, c);
    }
}
