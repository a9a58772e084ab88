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
                Some(name) => return Some(name.to_string()),
                None => {}
            }
        }
        after_label = labelled && strip_byline_label(t).is_empty();
    }
    None
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
    let page = if c.final_url.is_empty() {
        &c.url
    } else {
        &c.final_url
    };
    let domain = |host: &str| gleaner_core::util::registered_domain(host);
    let host = profile.split('/').next().unwrap_or("");
    let page_host = gleaner_core::util::host_of(page);
    !page_host.is_empty() && domain(host) == domain(&page_host)
}

/// Whether a login is the site's own account (a publisher's Facebook
/// page, "allrecipes" on allrecipes.com): its letters are the host's
/// name or the site's.
fn names_the_site(c: &Cleaned, login: &str) -> bool {
    let login = crate::title::squeezed(login);
    crate::title::host_name(c).is_some_and(|h| login.starts_with(&h))
        || c.meta
            .site_name
            .as_deref()
            .is_some_and(|s| crate::title::squeezed(s) == login)
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

    /// An author given as a profile's URL: a byline's name first, else a
    /// member's login on the site itself, never the URL; a Facebook page
    /// names the publisher's account, and a name anywhere wins over it.
    #[test]
    fn a_profiles_url_names_a_member_of_the_site_only() {
        let at = |url: &str, html: &str| {
            let mut c = page_of(html);
            c.url = url.to_string();
            author(&c)
        };
        let story =
            "<h1>Rust Project goals for 2024</h1><p>The story's text, long enough to read.</p>";
        let own = format!(
            r#"<meta property="article:author" content="https://lobste.rs/~scvalex">{story}"#
        );
        assert_eq!(
            at("https://lobste.rs/s/dwip3v", &own).as_deref(),
            Some("scvalex")
        );
        let facebook = format!(
            r#"<meta property="article:author" content="https://www.facebook.com/yonhapenglish">{story}"#
        );
        assert_eq!(at("https://en.yna.co.kr/view/1", &facebook), None);
        let bare = format!(r#"<meta name="author" content="www.facebook.com/tinyhouse">{story}"#);
        assert_eq!(at("https://tinyhouse.com/a", &bare), None);
        let named = format!(
            r#"<meta property="article:author" content="https://lobste.rs/~scvalex"><meta name="author" content="Alex Sc">{story}"#
        );
        assert_eq!(
            at("https://lobste.rs/s/dwip3v", &named).as_deref(),
            Some("Alex Sc")
        );
        assert_eq!(login_in("lobste.rs/~scvalex?x=1"), Some("scvalex"));
        assert_eq!(login_in("example.com/users/12345"), None);
        assert_eq!(login_in("example.com/author/index.html"), None);
        assert_eq!(login_in("example.com/"), None);
    }

    /// A headline after a menu of 500 entries still has its byline read.
    #[test]
    fn a_headline_deep_in_the_page_has_its_byline_read() {
        let menu: String = (0..500)
            .map(|i| format!("<li><a href='/c{i}'>Section {i}</a></li>"))
            .collect();
        let c = page_of(&format!(
            "<ul>{menu}</ul><h1>Easy Everyday Sourdough Bread</h1><div>Recipe by <a href='/author/pj'>PJ Hamel</a></div><p>The text of the recipe, long enough.</p>"
        ));
        assert!(c.blocks.len() > 400);
        assert_eq!(author(&c).as_deref(), Some("PJ Hamel"));
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
        for nobody in [
            "ops@our-hometown.com",
            "262588213843476",
            "arlene.m",
            "page.head.extra.author",
            "{{ author }}",
        ] {
            let c = page_of(&format!("<meta name='author' content='{nobody}'><h1>Story</h1><p class='byline'>By Arlene Marturano</p><p>Text.</p>"));
            assert_eq!(author(&c).as_deref(), Some("Arlene Marturano"), "{nobody}");
        }
        assert!(names_no_one("page.head.extra.author"));
        assert!(!names_no_one("J.R.R.Tolkien"));
        assert!(!names_no_one("sara.r.peter"));
        // The site's name as the author gives way to a writer's byline, a
        // byline naming the site too.
        let c = page_of("<meta property='og:site_name' content='The Press'><span itemprop='author'>The Press</span><h1>Story</h1><p class='byline'>By The Press</p><p>Courtesy of Forests News</p><p>Written by: Julie Mollins</p><p>Text.</p>");
        assert_eq!(author(&c).as_deref(), Some("Julie Mollins"));
        // A personal blog's byline is its site's name, and its author.
        let c = page_of("<meta property='og:site_name' content='Damien Walter'><h1>Story</h1><p class='byline'>By Damien Walter</p><p>Text.</p>");
        assert_eq!(author(&c).as_deref(), Some("Damien Walter"));
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

    /// "By Type" over a menu and "By Functionality" over a section are
    /// no bylines; a byline linked whole by the headline is.
    #[test]
    fn menus_and_sections_that_start_with_by_name_no_one() {
        let menu = "<nav><div><a href='/types'>By Type</a></div><div><a href='/r'>By Wine Region</a></div>\
            <div><a href='/'>Home</a></div><div><a href='/shop'>Shop</a></div><div><a href='/club'>Club</a></div></nav>\
            <h1>Story</h1><p>The text of the story, long enough to be one.</p>\
            <h3>By Functionality</h3><ol><li>Social media apps</li></ol>";
        assert_eq!(author(&page_of(menu)), None);
        let linked = "<h1>Story</h1><a class='byline-link' href='/au/scott'><p>By Scott Pletcher</p></a><p>The text.</p>";
        assert_eq!(author(&page_of(linked)).as_deref(), Some("Scott Pletcher"));
        let avatar = "<h1>Story</h1><div class='meta'>Author</div><div class='avatar'>CP</div><div>Chengcheng Pei</div><p>The text.</p>";
        assert_eq!(author(&page_of(avatar)).as_deref(), Some("Chengcheng Pei"));
        let heading = "<h1>Story</h1><h4>By Jane Doe</h4><p>The text.</p>";
        assert_eq!(author(&page_of(heading)).as_deref(), Some("Jane Doe"));
    }

    /// An author box that names its writer only in its portrait's `alt`;
    /// a byline in the text comes first, and a commenter's avatar or a
    /// dealer's logo names no one.
    #[test]
    fn an_author_boxs_portrait_names_the_writer_when_nothing_else_does() {
        let pictured = "<h1>Story</h1><p>The text of the story.</p>\
            <div class='post-author-wrapper'><img src='/a.png' alt='Headshot of Doris Munoz-Mantilla, MD'><p>Writes about health.</p></div>";
        assert_eq!(
            author(&page_of(pictured)).as_deref(),
            Some("Doris Munoz-Mantilla")
        );
        let both = format!("<p class='byline'>By Jane Doe</p>{pictured}");
        assert_eq!(author(&page_of(&both)).as_deref(), Some("Jane Doe"));
        let others = "<h1>Story</h1><img class='authorized-dealer-logo' alt='Portman Lights'><p>The text.</p>\
            <ol class='comment-list'><li><img class='avatar' alt='Jim Reader avatar'><p>Nice.</p></li></ol>";
        assert_eq!(author(&page_of(others)), None);
    }

    #[test]
    fn a_page_hidden_whole_until_a_script_shows_it_keeps_its_byline() {
        let c = page_of("<div hidden><h1>Story</h1><div class='post-author'>Chris Winter</div><p>The text of the story, long enough.</p></div>");
        assert_eq!(author(&c).as_deref(), Some("Chris Winter"));
    }
}
