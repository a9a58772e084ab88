//! Article metadata: the author, from the metadata or the byline (the
//! date is date.rs's, the title title.rs's).

use gleaner_core::messages::Cleaned;

/// Whether the block's element or its two nearest ancestors carry one of
/// these names (in tag, id or class).
pub(crate) fn near_names(path: &str, names: &[&str]) -> bool {
    let last = path
        .rsplit('/')
        .take(3)
        .collect::<Vec<_>>()
        .join("/")
        .to_ascii_lowercase();
    names.iter().any(|n| last.contains(n))
}

/// Names in ids and classes that hold a byline.
fn names_byline(path: &str) -> bool {
    // A sign-in box (`#authorization`) names no author.
    let path = path.to_ascii_lowercase().replace("authoriz", "");
    near_names(&path, &["author", "byline", "writer"])
}

/// Words that label a byline rather than name anyone.
const BYLINE_LABELS: &[&str] = &[
    "written by",
    "posted by",
    "published by",
    "article by",
    "text by",
    "authored by",
    "reviewed by",
    "story by",
    "recipe by",
    "words by",
    "by",
    // German, French, Spanish and Portuguese, Italian: the longer forms
    // first. Italian's bare "di" is left out, as it begins surnames (Di
    // Maio), and Dutch "door", an English word ("Door Locks").
    "geschrieben von",
    "verfasst von",
    "von",
    "écrit par",
    "publié par",
    "par",
    "escrito por",
    "publicado por",
    "por",
    "scritto da",
    "autorin",
    "autora",
    "autore",
    "autor",
    "auteur",
    // Chinese and Japanese: writer, reporter, editor.
    "作者",
    "记者",
    "記者",
    "编辑",
    "責任編集",
    "about the author",
    "the author",
    "authors",
    "author",
    "role",
    "contributors",
    "contributor",
];

/// A byline with its label taken off: "By Jane Doe" and "Author: Jane Doe"
/// give "Jane Doe"; a bare label gives "".
fn strip_byline_label(text: &str) -> &str {
    let mut t = text.trim();
    for label in BYLINE_LABELS {
        if t.len() >= label.len() && t.is_char_boundary(label.len()) {
            let (head, rest) = t.split_at(label.len());
            // "ByTrevor Jones": "By" and the name in spans written with no
            // space between them ("BYU" and "Byron" are no bylines).
            let glued = head == "By"
                && rest.starts_with(char::is_uppercase)
                && rest.chars().nth(1).is_some_and(char::is_lowercase);
            if glued
                || head.eq_ignore_ascii_case(label)
                    && !rest.starts_with(|c: char| c.is_alphanumeric())
            {
                t = rest
                    .trim_start_matches([':', '：', ' ', '\u{a0}', '|', '/'])
                    .trim();
                break;
            }
        }
    }
    t
}

/// A byline's text up to where a date or a time begins: "Erin Cunningham
/// March 18 at 3:57 PM Follow @erin" gives "Erin Cunningham" (a month name
/// before the first number goes with it: "Dec. 19", "December 2023",
/// "März 2024").
fn before_a_date(text: &str) -> &str {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some(k) = words
        .iter()
        .position(|w| w.starts_with(|c: char| c.is_ascii_digit()))
    else {
        return text;
    };
    let day = words[k].trim_end_matches([',', '.']);
    let parses = |format: &str, input: String| {
        jiff::fmt::strtime::BrokenDownTime::parse(format, input).is_ok()
    };
    let mut end = k;
    let month = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        ["%B %d", "%b %d"]
            .iter()
            .any(|f| parses(f, format!("{w} {day}")))
            || crate::date::is_month(&w.to_lowercase())
    };
    // "March 18", "Sep 5", then a weekday before them ("Sun Dec 12").
    if end > 0 && month(words[end - 1]) {
        end -= 1;
        let weekday = |w: &str| {
            ["%A", "%a"].iter().any(|f| {
                parses(
                    f,
                    w.trim_matches(|c: char| !c.is_alphanumeric()).to_string(),
                )
            })
        };
        if end > 0 && weekday(words[end - 1]) {
            end -= 1;
        }
    }
    let cut = words[end].as_ptr() as usize - text.as_ptr() as usize;
    // What separated the name from the date: "Name (", "Name ●", "Name »".
    text[..cut].trim_end_matches(|c: char| !c.is_alphanumeric() && c != '.')
}

/// Separators between a byline's name and its date, place or title.
const BYLINE_SEPARATORS: &[&str] = &["·", "⋅", "|", "•", " - ", " on ", ","];

/// A person's name out of a byline, or `None` when the text does not look
/// like one (too many words, digits, not capitalised). The name may come
/// before or after a separated date: "By Jane Doe · 2 May 2024", "Dec. 19,
/// 2025 · Niko Matsakis".
fn name_in(byline: &str) -> Option<&str> {
    let rest = strip_byline_label(byline);
    let labelled = rest.len() < byline.trim().len();
    let mut parts = vec![rest];
    for sep in BYLINE_SEPARATORS {
        parts = parts.iter().flat_map(|p| p.split(sep)).collect();
    }
    // A part is read after another only when that one held a digit (a
    // date): "The author would like to thank A, B and C" names no author.
    for part in parts.into_iter().take(4) {
        let own = strip_byline_label(part);
        if let Some(name) = name_of(own, labelled || own.len() < part.trim().len()) {
            return Some(name);
        }
        if !part.contains(|c: char| c.is_ascii_digit()) {
            return None;
        }
    }
    None
}

/// The text up to a digit written against a letter: inline elements with
/// no space between them ("By Lucas Nolan22 Dec 2016"; a name has no digit).
fn before_a_glued_digit(text: &str) -> &str {
    text.char_indices()
        .zip(text.chars().skip(1))
        .find(|((_, a), b)| a.is_alphabetic() && b.is_ascii_digit())
        .map_or(text, |((i, a), _)| &text[..i + a.len_utf8()])
}

/// The text as a person's name, if it looks like one; a `labelled` text
/// ("By ...") may run into a date.
fn name_of(name: &str, labelled: bool) -> Option<&str> {
    // The name may run into the date ("Dakota Hebert July 3, 2025"), after
    // a label with no space between them.
    let name = if labelled {
        before_a_date(before_a_glued_digit(name).trim())
    } else {
        before_a_date(name.trim())
    };
    // A Chinese or Japanese name after a label (记者 张三): two to eight
    // characters, none of them Latin, digits or punctuation.
    let han = |c: char| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}');
    if labelled && (2..=8).contains(&name.chars().count()) && name.chars().all(han) {
        return Some(name);
    }
    let words = name.split_whitespace().count();
    // Every word capitalised, but for particles ("Ludwig van Beethoven").
    let capitalised = name.split_whitespace().all(|w| {
        w.chars()
            .find(|c| c.is_alphabetic())
            .is_none_or(char::is_uppercase)
            || matches!(
                w,
                "de" | "da"
                    | "di"
                    | "van"
                    | "von"
                    | "der"
                    | "del"
                    | "la"
                    | "le"
                    | "bin"
                    | "al"
                    | "and"
                    | "with"
                    | "the"
                    | "of"
            )
    });
    // What a date line says of itself ("Last Updated", "Published").
    let dated = name.split_whitespace().any(|w| {
        ["updated", "published", "posted", "modified"]
            .iter()
            .any(|d| w.eq_ignore_ascii_case(d))
    });
    ((1..=5).contains(&words)
        && capitalised
        && !dated
        && !name.chars().any(|c| c.is_ascii_digit() || c == ':')
        && strip_byline_label(name) == name)
        .then_some(name)
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
    // A link marked `rel="author"` says more than an author-named element
    // elsewhere on the page (a sign-in box, a comment's author).
    // Then a labelled social card's writer ("Written by" on Yoast's
    // cards): the post's account, which the byline may correct.
    let named = |text: Option<&str>| name_in(text?).map(str::to_string);
    byline_in(c, below, hidden_page)
        .or_else(|| byline_in(c, above, hidden_page))
        .or_else(|| named(c.meta.linked_author.as_deref()))
        .or_else(|| named(c.meta.card_author.as_deref()))
        .or_else(|| byline_in(c, 0..usize::MAX, hidden_page))
}

/// The first byline among the blocks numbered in `within`; hidden blocks
/// are passed over unless the page is hidden whole (`hidden_page`). Read
/// by the headline first: elsewhere "By Type" heads a menu, "Contributors"
/// labels a menu of sections, a list of other posts says "May 2, 2025 by
/// ..." and a sign-in box is named for authorization.
fn byline_in(c: &Cleaned, within: std::ops::Range<usize>, hidden_page: bool) -> Option<String> {
    let mut after_label = false;
    let blocks = c.blocks.iter().take(400).skip(within.start);
    for b in blocks.take(within.end.saturating_sub(within.start)) {
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
        let t = byline_after_a_date(t).unwrap_or(t);
        let labelled = strip_byline_label(t).len() < t.len();
        if after_label || names_byline(&b.path) || labelled {
            // A lone word under an author-named element is more often a
            // label or a heading ("Name", "Modality") than a name.
            let sure = after_label || labelled;
            if let Some(name) = name_in(t).filter(|n| sure || n.contains(' ')) {
                return Some(name.to_string());
            }
        }
        after_label = labelled && strip_byline_label(t).is_empty();
    }
    None
}

/// The byline of a line that gives the date first: "September 1st, 2023
/// By Emily Norwood" gives "By Emily Norwood": up to six words that hold a
/// digit, each a number, a month, a weekday, a word that introduces a
/// date ("Published", "on") or a separator, then a byline label. "Chapter
/// 05: Coding by Composing", "6 Fastest Skateboards by Ecomobl" and "©
/// 2025 by IMDb.com" are no bylines.
fn byline_after_a_date(line: &str) -> Option<&str> {
    const DATE_WORDS: &[&str] = &[
        "published",
        "updated",
        "posted",
        "on",
        "at",
        "am",
        "pm",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "de",
        "le",
        "um",
    ];
    let date_word = |w: &str| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        w.is_empty()
            || w.contains(|c: char| c.is_ascii_digit())
            || crate::date::is_month(&w)
            || DATE_WORDS.contains(&w.as_str())
    };
    let lower = line.to_ascii_lowercase();
    [" by ", " von ", " par ", " por "]
        .iter()
        .find_map(|label| {
            let at = lower.find(label)?;
            let date = &line[..at];
            let dated = date.contains(|c: char| c.is_ascii_digit())
                && !date.contains('©')
                && date.split_whitespace().count() <= 6
                && date.split_whitespace().all(date_word);
            dated.then(|| &line[at + 1..])
        })
}

/// Whether a block's path has a `<form>` or `<label>` element.
fn in_a_form(path: &str) -> bool {
    path.split('/').any(|label| {
        let tag = label.split(['#', '.']).next().unwrap_or("");
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

/// Metadata that names no one: an e-mail address ("ops@example.com") or a
/// number (a user id).
fn is_an_address_or_number(author: &str) -> bool {
    let email = !author.contains(char::is_whitespace)
        && author
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
    email || author.chars().all(|c| c.is_ascii_digit())
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
/// byline.
pub fn author(c: &Cleaned) -> Option<String> {
    let Some(meta) = c
        .meta
        .author
        .as_deref()
        .map(|a| a.trim_start_matches([',', ';', ' ']).trim())
        .filter(|a| !a.is_empty() && !is_an_address_or_number(a))
    else {
        return byline_author(c);
    };
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
        // A login gives way to a byline's full name only.
        _ if is_a_login(meta) => byline_author(c)
            .filter(|name| name.contains(' '))
            .or_else(|| Some(meta.to_string())),
        _ => Some(meta.to_string()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn page_of(html: &str) -> Cleaned {
        let (title, meta, blocks) = gleaner_clean::clean_html(html).unwrap();
        Cleaned {
            id: String::new(),
            url: String::new(),
            final_url: String::new(),
            fetched_at: String::new(),
            title,
            meta,
            blocks,
        }
    }

    #[test]
    fn bylines_give_names_not_labels() {
        let body = |byline: &str| {
            page_of(&format!(
                "<h1>Story</h1>{byline}<p>The text of the story, long enough.</p>"
            ))
        };
        // A label alone: the name is in the next block.
        let c = body("<div class='author-box'><span class='label'>Written By</span><div>Jane Doe</div></div>");
        assert_eq!(author(&c).as_deref(), Some("Jane Doe"));
        assert_eq!(
            author(&body("<p class='byline'>Author: Sam Lee · May 2</p>")).as_deref(),
            Some("Sam Lee")
        );
        assert_eq!(
            author(&body("<p>By Ann Marie Cole</p>")).as_deref(),
            Some("Ann Marie Cole")
        );
        assert_eq!(
            author(&body("<span class='byline'>Text by Hunter Dukes</span>")).as_deref(),
            Some("Hunter Dukes")
        );
        assert_eq!(
            author(&body(
                "<div class='author'>Moses Kim and Kate Shokurova</div>"
            ))
            .as_deref(),
            Some("Moses Kim and Kate Shokurova")
        );
        // Other languages' labels; a sentence that starts with one is no byline.
        for (line, name) in [
            ("<p>Von Anna Schmidt</p>", "Anna Schmidt"),
            ("<p>Par Jean Dupont, le 5 mars 2024</p>", "Jean Dupont"),
            ("<p>Por María López</p>", "María López"),
            ("<p>记者 张三</p>", "张三"),
            ("<p>作者：王小明</p>", "王小明"),
        ] {
            assert_eq!(author(&body(line)).as_deref(), Some(name), "{line}");
        }
        assert_eq!(
            author(&body("<p>Von Berlin aus fährt der Zug weiter.</p>")),
            None
        );
        assert_eq!(author(&body("<p>Par ailleurs, la ville a voté.</p>")), None);
        assert_eq!(author(&body("<p>Door Locks</p>")), None);
        // Labels and lone words under author-named elements are not names.
        assert_eq!(author(&body("<div class='author'>Role</div>")), None);
        assert_eq!(author(&body("<div class='author'>By</div>")), None);
        assert_eq!(author(&body("<div class='writer'>Name</div>")), None);
        // Not a byline: "Byron" is a name, not "By" + "ron".
        assert_eq!(author(&body("<p>Byron Bay</p>")), None);
        // Names after a label's sentence are no byline.
        assert_eq!(
            author(&body(
                "<p>The author would like to thank Ann Lee, Bo Chen and Cy</p>"
            )),
            None
        );
        // Metadata naming only the site gives way to the byline.
        let c = page_of("<meta property='og:site_name' content='Daily Post'><meta name='author' content='Daily Post'><p class='byline'>By Kim Park</p><p>Text.</p>");
        assert_eq!(author(&c).as_deref(), Some("Kim Park"));
        let c = page_of("<meta name='author' content='Kim Park'><p>Text.</p>");
        assert_eq!(author(&c).as_deref(), Some("Kim Park"));
    }

    /// An author-named element by the headline is the byline, before one
    /// in the page's header or a comment form; a post signed at its end
    /// still has its author.
    #[test]
    fn the_byline_by_the_headline_comes_first() {
        let filler = "<p>A paragraph of the story, long enough to be text.</p>".repeat(20);
        let c = page_of(&format!(
            "<div class='author-menu'><a>Sign In</a></div><h1>Story</h1>\
             <p class='byline'>Ray Ansari</p>{filler}\
             <form><label class='comment-author'>Your Name</label></form>"
        ));
        assert_eq!(author(&c).as_deref(), Some("Ray Ansari"));
        let c = page_of(&format!(
            "<h1>Story</h1>{filler}<div class='post-author'>John Scalzi</div>"
        ));
        assert_eq!(author(&c).as_deref(), Some("John Scalzi"));
        // A bare label in a menu far above ("Contributors" over the next
        // section's name) gives way to the byline by the headline.
        let menu = "<li>News</li>".repeat(20);
        let c = page_of(&format!(
            "<ul><li>Contributors</li><li>Personal Finance</li>{menu}</ul>\
             <h1>Story</h1><div class='author'>Ben Silverman</div>{filler}"
        ));
        assert_eq!(author(&c).as_deref(), Some("Ben Silverman"));
        // A social card's writer is the post's account: the byline by the
        // headline corrects it, and "admin" names no one.
        let card = |name: &str| {
            format!("<meta name='twitter:label1' content='Written by'><meta name='twitter:data1' content='{name}'>")
        };
        let c = page_of(&format!(
            "{}<h1>Story</h1><p class='byline'>By Christian Dupuis</p>{filler}",
            card("Colin Madison")
        ));
        assert_eq!(author(&c).as_deref(), Some("Christian Dupuis"));
        let c = page_of(&format!("{}<h1>Story</h1>{filler}", card("Colin Madison")));
        assert_eq!(author(&c).as_deref(), Some("Colin Madison"));
        let c = page_of(&format!("{}<h1>Story</h1>{filler}", card("admin")));
        assert_eq!(author(&c), None);
        // A sign-in box (#authorization) names no author.
        let c = page_of(&format!(
            "<div id='authorization'>Sign In</div><h1>Story</h1>{filler}"
        ));
        assert_eq!(author(&c), None);
    }

    /// A byline's name ends where its date begins; a comment form's field
    /// and hidden text are no bylines; metadata written as a byline gives
    /// way to the page's own.
    #[test]
    fn names_end_at_the_date_and_forms_are_not_bylines() {
        let body = |byline: &str| {
            page_of(&format!(
                "<h1>Story</h1>{byline}<p>The text of the story, long enough.</p>"
            ))
        };
        for (byline, name) in [
            ("<div class='sig'><span>By <a>Erin Cunningham</a></span> March 18 at 3:57 PM Follow @erinmc</div>", Some("Erin Cunningham")),
            ("<div>By Jo Park (Sun Dec 12, 2021)</div>", Some("Jo Park")),
            ("<div>By Ana Ruiz 12 March 2024</div>", Some("Ana Ruiz")),
            // Spans written with no space between them; a date before the name.
            ("<p class='byline'><span>by</span> <a>Lucas Nolan</a><span>22 Dec 2016</span></p>", Some("Lucas Nolan")),
            ("<div class='publish-date-author'>Dec. 19, 2025 &middot; Niko Matsakis</div>", Some("Niko Matsakis")),
            ("<div class='meta'>September 1st, 2023 <span>By Emily Norwood</span></div>", Some("Emily Norwood")),
            ("<div class='meta'>03/01/2017 by Agatha Caleo, Candidate Representative</div>", Some("Agatha Caleo")),
            ("<p>Photo taken 2023 by Jo Park</p>", None),
            ("<div class='author-details'>Dakota Hebert July 3, 2025</div>", Some("Dakota Hebert")),
            ("<div class='entry-meta'><span>By</span><span>Trevor Jones</span></div>", Some("Trevor Jones")),
            ("<div class='quickview__blog-author'>Recipe by <a>PJ Hamel</a></div>", Some("PJ Hamel")),
            ("<p>BYU Cougars</p>", None),
            ("<div class='author'>Heather Handmade December 2023</div>", Some("Heather Handmade")),
            ("<div class='byline'>Last Updated: January 7, 2025</div>", None),
            ("<ul class='copybyline'><li>The Pennsylvania State University © 2025</li></ul>", None),
            ("<h2>6 Fastest Electric Skateboards by Ecomobl</h2>", None),
            ("<p>© 2025 by Example Media</p>", None),
            ("<div class='meta'><span>Published August 7, 2023</span> <span>by Nicole Burke</span></div>", Some("Nicole Burke")),
            // The label's name is missing: a month is no name.
            ("<div class='blog-author'>Written By Feb 11, 2019 · 3 min read</div>", None),
            ("<form><p class='comment-form-author'><label>Name <span>*</span></label></p></form>", None),
            ("<div class='author-tabs'><div hidden>Collection Notes</div></div>", None),
        ] {
            assert_eq!(author(&body(byline)).as_deref(), name, "{byline}");
        }
        let c = page_of("<meta name='author' content='By Thai Vong'><h1>Story</h1><p class='byline'>By Linda Rose</p><p>Text.</p>");
        assert_eq!(author(&c).as_deref(), Some("Linda Rose"));
        for nobody in ["ops@our-hometown.com", "262588213843476", "arlene.m"] {
            let c = page_of(&format!("<meta name='author' content='{nobody}'><h1>Story</h1><p class='byline'>By Arlene Marturano</p><p>Text.</p>"));
            assert_eq!(author(&c).as_deref(), Some("Arlene Marturano"), "{nobody}");
        }
        let c = page_of("<meta name='author' content='By Thai Vong'><p>Text.</p>");
        assert_eq!(author(&c).as_deref(), Some("Thai Vong"));
        let c = page_of(
            "<meta name='author' content='Contributors to Wikimedia projects'><p>Text.</p>",
        );
        assert_eq!(
            author(&c).as_deref(),
            Some("Contributors to Wikimedia projects")
        );
    }

    #[test]
    fn a_page_hidden_whole_until_a_script_shows_it_keeps_its_byline() {
        let c = page_of("<div hidden><h1>Story</h1><div class='post-author'>Chris Winter</div><p>The text of the story, long enough.</p></div>");
        assert_eq!(author(&c).as_deref(), Some("Chris Winter"));
    }
}
