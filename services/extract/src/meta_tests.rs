//! Tests of meta.rs: authors from the metadata and the page's bylines.

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
    let story = "<h1>Rust Project goals for 2024</h1><p>The story's text, long enough to read.</p>";
    let own =
        format!(r#"<meta property="article:author" content="https://lobste.rs/~scvalex">{story}"#);
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
    let c = body(
        "<div class='author-box'><span class='label'>Written By</span><div>Jane Doe</div></div>",
    );
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
    let c =
        page_of("<meta name='author' content='Contributors to Wikimedia projects'><p>Text.</p>");
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

/// An agency's initials in the metadata give way, on an article, to the
/// byline's full name; elsewhere (a station's listing) they stay.
#[test]
fn an_agencys_initials_give_way_to_the_bylines_name_on_an_article() {
    let article = page_of(
        "<meta property='og:type' content='article'><meta name='author' content='AFP'>\
        <h1>Inde : la mousson</h1><p class='byline'>Par Sébastien Farcis</p><p>Le texte de l'article, assez long pour être lu.</p>",
    );
    assert_eq!(author(&article).as_deref(), Some("Sébastien Farcis"));
    let listing = page_of(
        "<meta name='author' content='WRAL'><h1>Vehicle rental news</h1>\
        <p class='byline'>By Clare Duffy</p><p>One story among many on this page.</p>",
    );
    assert_eq!(author(&listing).as_deref(), Some("WRAL"));
}

/// A byline whose only link is the name loses the role or affiliation
/// written after the link; two linked names, or a link that is not the
/// name's start, leave the byline as read.
#[test]
fn a_bylines_linked_name_leaves_its_role_out() {
    let byline = |line: &str| {
        author(&page_of(&format!(
            "<h1>Story</h1><div class='byline'>{line}</div><p>The text of the story, long enough.</p>"
        )))
    };
    assert_eq!(
        byline("<a href='/staff/bt'>Brian Truitt</a> USA TODAY").as_deref(),
        Some("Brian Truitt")
    );
    assert_eq!(
        byline("Written By: <a href='/u/cl'>Celeste Longacre</a> Gardener &amp; Astrologer")
            .as_deref(),
        Some("Celeste Longacre")
    );
    assert_eq!(
        byline("By <a href='/a'>Ann Lee</a> and <a href='/b'>Bo Chen</a>").as_deref(),
        Some("Ann Lee and Bo Chen")
    );
}
