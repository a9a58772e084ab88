use super::*;

/// A page whose article is only in its JSON-LD (rendered by script)
/// gets its paragraphs as blocks; a page showing its article keeps its
/// own blocks only.
#[test]
fn json_ld_article_body_stands_in_for_a_page_without_text() {
    let para = "The council voted on Tuesday to rebuild the old bridge over the river &amp; to reopen it before the end of next summer, at a cost of forty million.";
    let body = format!("{para}\n\n{para}\n{para}\n{para}");
    let ld = serde_json::json!({"@type": "NewsArticle", "headline": "Bridge", "articleBody": body});
    let empty = format!(
        r#"<html><head><script type="application/ld+json">{ld}</script></head><body><div id="root"></div><footer>Contact us</footer></body></html>"#
    );
    let (_, _, blocks) = clean_html(&empty).unwrap();
    let paragraphs: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.path.ends_with("articleBody/p"))
        .collect();
    assert_eq!(paragraphs.len(), 4, "{blocks:?}");
    assert!(
        paragraphs[0].text.contains("river & to reopen"),
        "{:?}",
        paragraphs[0].text
    );
    assert_ne!(paragraphs[0].ancestors, paragraphs[1].ancestors);
    assert_eq!(paragraphs[0].ancestors[..3], paragraphs[1].ancestors[..3]);
    let shown = format!(
        r#"<html><head><script type="application/ld+json">{ld}</script></head><body><article><p>{para}</p><p>{para}</p><p>{para}</p></article></body></html>"#
    );
    let (_, _, blocks) = clean_html(&shown).unwrap();
    assert!(
        blocks.iter().all(|b| !b.path.contains("articleBody")),
        "{blocks:?}"
    );
}

#[test]
fn drops_scripts_and_keeps_block_order() {
    let html = r#"<html lang="en"><head><title>T &amp; U</title>
        <meta name="author" content="Ann Lee"><link rel="canonical" href="https://x.test/a">
        <style>p{}</style><script>var x = "<p>no</p>";</script></head>
        <body><nav><a href="/">Home</a> <a href="/b">B</a></nav>
        <!-- a comment --><p>First <b>para</b>graph&nbsp;here.<p>Second <a href="/x">link</a> one
        <svg><text>svg text</text></svg><noscript>ns</noscript><template>tpl</template>
        <div>a</div><div>b</div></body></html>"#;
    let (title, meta, blocks) = clean_html(html).unwrap();
    assert_eq!(title, "T & U");
    assert_eq!(meta.author.as_deref(), Some("Ann Lee"));
    assert_eq!(meta.language.as_deref(), Some("en"));
    assert_eq!(meta.canonical_url.as_deref(), Some("https://x.test/a"));
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "Home B",
            "First paragraph here.",
            "Second link one",
            "a",
            "b"
        ]
    );
    assert_eq!(blocks[0].link_count, 2);
    assert_eq!(blocks[0].link_text_len, 5);
    assert_eq!(blocks[2].path, "html/body/p");
    assert_eq!(blocks[2].ancestors.len(), 3);
    assert_ne!(
        blocks[2].ancestors, blocks[1].ancestors,
        "two <p> are two nodes"
    );
    assert_eq!(blocks[2].link_text_len, 4);
}

/// A link left open (`<a name="top"/>`: `/>` does not close it) ends
/// at the next link, as in a browser, instead of making the rest of
/// the page link text. (An `<a>` without `href` stays a link: most
/// are script-driven menus and buttons; wcxb-dev lost 0.0001.)
#[test]
fn a_link_left_open_ends_at_the_next() {
    let html = r##"<body><a name="top"/><div id="root"/><a href="#main">skip</a>
        <p>The harbour bridge reopened on Monday after repairs.</p>
        <p><a href="/a">Open <a href="/b">inner</a> after</p></body>"##;
    let (_, _, blocks) = clean_html(html).unwrap();
    let by_text = |t: &str| blocks.iter().find(|b| b.text.starts_with(t)).unwrap();
    assert_eq!(by_text("The harbour").link_text_len, 0);
    assert_eq!(by_text("skip").link_text_len, 4);
    // "Open" was link text until the next link began; "inner" is.
    let last = by_text("Open");
    assert_eq!(last.link_text_len, "Open inner".chars().count() as u32);
}

#[test]
fn ruby_readings_stay_out_of_the_text() {
    let html =
        "<body><p>漢<ruby>字<rt>じ</rt></ruby>の読み、<ruby>東<rp>(</rp><rt>とう</rt><rp>)</rp>\
                京<rp>(</rp><rt>きょう</rt><rp>)</rp></ruby>。</p>\
                <p><ruby>明<rt>めい<rt>x</ruby>日も続く。</p><p>The end.</p></body>";
    let (_, _, blocks) = clean_html(html).unwrap();
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    // End tags left out close with the ruby: nothing after is lost.
    assert_eq!(
        texts,
        vec!["漢字の読み、東京。", "明日も続く。", "The end."]
    );
}

#[test]
fn mediawikis_edit_links_stay_out_of_the_headings() {
    let html = r#"<body><h2><span class="mw-headline" id="Software">Software</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/w/index.php?action=edit&amp;section=3">edit</a><span class="mw-editsection-bracket">]</span></span></h2>
        <p>Firefox is a web browser.</p><p class="mw-editsection-note">A note.</p></body>"#;
    let (_, _, blocks) = clean_html(html).unwrap();
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["Software", "Firefox is a web browser.", "A note."]);
    // The heading holds no link any more.
    assert_eq!(blocks[0].link_text_len, 0);
}

#[test]
fn labels_carry_id_and_classes_as_written() {
    let html = r#"<body><DIV ID=main Class="story  wide x/y more" data-id="no"><p class=''>a</p>
        <section title="id" class="s1"><p id="p.1" CLASS='c&amp;d'>b</p></section><p class id>c</p></DIV></body>"#;
    let (_, _, blocks) = clean_html(html).unwrap();
    let paths: Vec<&str> = blocks.iter().map(|b| b.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "body/div#main.story.wide.xy/p",
            "body/div#main.story.wide.xy/section.s1/p#p1.c&amp;d",
            "body/div#main.story.wide.xy/p",
        ]
    );
}

#[test]
fn fragments_with_several_top_level_elements_keep_all_text() {
    // Each top-level element is removed from the (discarded) output;
    // its handlers must still see everything inside it.
    let html = "lead <p>One <i>two</i></p> mid <div><p>Three</p>four</div><br>tail";
    let (_, _, blocks) = clean_html(html).unwrap();
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        vec!["lead", "One two", "mid", "Three", "four", "tail"]
    );
    assert_eq!(blocks[3].path, "div/p");
}

#[test]
fn formulas_keep_their_symbols_not_their_source_nor_hidden_copies() {
    let html = r#"<body><p>When <math><mi>a</mi> <mo>≠</mo> <mn>0</mn>
        <annotation encoding="application/x-tex">a \ne 0</annotation></math>, two roots.</p>
        <p>Area <span style="display: none"><math><mi>A</mi></math></span>
        <img alt="A"> of it.</p></body>"#;
    let (_, _, blocks) = clean_html(html).unwrap();
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["When a ≠ 0 , two roots.", "Area of it."]);
}

#[test]
fn blocks_know_hidden_text_and_chrome_roles() {
    let html = r#"<body><div role="Navigation"><p>Home News</p></div>
        <p>Shown <span aria-hidden="true">icon</span> text</p>
        <p hidden>All hidden</p><div style="DISPLAY: none">Gone</div>
        <p style="visibility:hidden">Also gone</p><p aria-hidden="false">Seen</p>
        <main role="main"><p>Body</p></main></body>"#;
    let (_, _, blocks) = clean_html(html).unwrap();
    let got: Vec<(&str, u32, u32, bool)> = blocks
        .iter()
        .map(|b| (b.text.as_str(), b.hidden_len, b.text_len, b.chrome_role))
        .collect();
    assert_eq!(
        got,
        vec![
            ("Home News", 0, 9, true),
            ("Shown icon text", 4, 15, false),
            ("All hidden", 10, 10, false),
            ("Gone", 4, 4, false),
            ("Also gone", 9, 9, false),
            ("Seen", 0, 4, false),
            ("Body", 0, 4, false),
        ]
    );
}

#[test]
fn hiding_class_names_and_closed_dialogs_hide_text() {
    for (class, hides) in [
        ("d-none", true),
        ("menu sr-only", true),
        ("Visually-Hidden", true),
        ("hidden md:block", false),
        ("d-none d-lg-flex", false),
        ("hiddenx", false),
        ("not-hidden", false),
        ("", false),
    ] {
        assert_eq!(classes_hide(class), hides, "{class:?}");
    }
    let html = r#"<body><dialog><p>Sign up now</p></dialog><dialog open><p>Open one</p></dialog>
        <p>Text <span class="screen-reader-text">(opens in a new tab)</span></p></body>"#;
    let (_, _, blocks) = clean_html(html).unwrap();
    let got: Vec<(&str, u32)> = blocks
        .iter()
        .map(|b| (b.text.as_str(), b.hidden_len))
        .collect();
    assert_eq!(
        got,
        vec![
            ("Sign up now", 11),
            ("Open one", 0),
            ("Text (opens in a new tab)", 20)
        ]
    );
}

#[test]
fn invisible_characters_do_not_split_words() {
    let (_, _, blocks) =
        clean_html("<p>Assis&shy;tance for home\u{ad}owners\u{200b} \u{feff}now</p>").unwrap();
    assert_eq!(blocks[0].text, "Assistance for homeowners now");
}

#[test]
fn a_head_left_open_ends_at_the_body() {
    let html = "<html><head><title>T</title><meta name=description content=d><body><p>The text.</p></body></html>";
    let (title, meta, blocks) = clean_html(html).unwrap();
    assert_eq!(title, "T");
    assert_eq!(meta.description.as_deref(), Some("d"));
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["The text."]);
    assert_eq!(blocks[0].path, "html/body/p");
}

#[test]
fn json_ld_gives_author_and_date() {
    let html = r#"<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-05-01T10:00:00Z","author":{"name":"Bo Chen"}}</script><p>x</p>"#;
    let (_, meta, _) = clean_html(html).unwrap();
    assert_eq!(meta.date.as_deref(), Some("2024-05-01T10:00:00Z"));
    assert_eq!(meta.author.as_deref(), Some("Bo Chen"));
    assert_eq!(meta.page_type.as_deref(), Some("NewsArticle"));
}

/// A Reddit thread: the first post element's attributes name its poster
/// and time (a comment's after it do not); the page's own metadata wins.
#[test]
fn a_reddit_threads_first_post_gives_poster_and_time() {
    let html = r#"<shreddit-post author="ControlCAD" created-timestamp="2026-03-05T01:53:41.845000+0000"><h1>FCC chair</h1><p>text</p></shreddit-post>
        <shreddit-post author="someone-else" created-timestamp="2026-03-06T00:00:00+0000"><p>more</p></shreddit-post>"#;
    let (_, meta, _) = clean_html(html).unwrap();
    assert_eq!(meta.author.as_deref(), Some("ControlCAD"));
    assert_eq!(
        meta.date.as_deref(),
        Some("2026-03-05T01:53:41.845000+0000")
    );
    let declared = format!(r#"<meta name="author" content="Mods">{html}"#);
    let (_, meta, _) = clean_html(&declared).unwrap();
    assert_eq!(meta.author.as_deref(), Some("Mods"));
}

#[test]
fn page_type_from_json_ld_over_og_type() {
    let og = r#"<meta property="og:type" content="article"><p>x</p>"#;
    assert_eq!(
        clean_html(og).unwrap().1.page_type.as_deref(),
        Some("article")
    );
    // The forum post's type, not the site's or the breadcrumbs'.
    let ld = r#"<meta property="og:type" content="website"><script type="application/ld+json">{"@graph":[{"@type":"WebSite","name":"Forum"},{"@type":["DiscussionForumPosting"],"headline":"Help"},{"@type":"BreadcrumbList"}]}</script><p>x</p>"#;
    assert_eq!(
        clean_html(ld).unwrap().1.page_type.as_deref(),
        Some("DiscussionForumPosting")
    );
    assert_eq!(clean_html("<p>x</p>").unwrap().1.page_type, None);
    // Microdata's page type over og:type (Stack Exchange), JSON-LD's
    // over both; an item of no page type (a Person) is none.
    let qa = r#"<meta property="og:type" content="website"><div itemscope itemtype="https://schema.org/Person"><p>Ann</p></div><div itemscope itemtype="https://schema.org/QAPage"><p>x</p></div>"#;
    assert_eq!(
        clean_html(qa).unwrap().1.page_type.as_deref(),
        Some("QAPage")
    );
    let both = format!(
        r#"{qa}<script type="application/ld+json">{{"@type":"DiscussionForumPosting"}}</script>"#
    );
    assert_eq!(
        clean_html(&both).unwrap().1.page_type.as_deref(),
        Some("DiscussionForumPosting")
    );
    let index = r#"<meta property="og:type" content="website"><article itemscope itemtype="https://schema.org/BlogPosting"><p>a</p></article><article itemscope itemtype="https://schema.org/BlogPosting"><p>b</p></article>"#;
    assert_eq!(
        clean_html(index).unwrap().1.page_type.as_deref(),
        Some("website")
    );
}

/// Every author a JSON-LD list names, the article's image and its
/// publisher; an organisation's logo elsewhere in the graph is not the
/// lead image, and og:image comes first.
#[test]
fn json_ld_gives_authors_image_and_publisher() {
    let ld = r#"<script type="application/ld+json">{"@graph":[{"@type":"Organization","name":"Org","logo":{"@type":"ImageObject","url":"/logo.png"},"image":"/org.png"},{"@type":"NewsArticle","author":[{"@type":"Person","name":"Stella Kim"},{"name":"Jennifer  Jett"}],"image":[{"@type":"ImageObject","url":"https://cdn.example/lead.jpg"}],"publisher":{"@type":"Organization","name":"NBC News"}}]}</script><p>x</p>"#;
    let meta = clean_html(ld).unwrap().1;
    assert_eq!(meta.author.as_deref(), Some("Stella Kim, Jennifer Jett"));
    assert_eq!(meta.authors, ["Stella Kim", "Jennifer Jett"]);
    assert_eq!(meta.image.as_deref(), Some("https://cdn.example/lead.jpg"));
    assert_eq!(meta.site_name.as_deref(), Some("NBC News"));
    let og = format!(r#"<meta property="og:image" content="/og.jpg">{ld}"#);
    let meta = clean_html(&og).unwrap().1;
    assert_eq!(meta.image.as_deref(), Some("/og.jpg"));
    let one = r#"<script type="application/ld+json">{"@type":"BlogPosting","author":{"name":"Bo Chen"}}</script><p>x</p>"#;
    let meta = clean_html(one).unwrap().1;
    assert_eq!(meta.author.as_deref(), Some("Bo Chen"));
    assert!(meta.authors.is_empty(), "one author is `author` alone");
    // Names escaped as HTML (Yoast's JSON-LD) read as the page shows them.
    let escaped = r#"<script type="application/ld+json">{"@type":"BlogPosting","author":{"name":"Maria &amp; Katerina"},"publisher":{"name":"Trip &#038; Tome"}}</script><p>x</p>"#;
    let meta = clean_html(escaped).unwrap().1;
    assert_eq!(meta.author.as_deref(), Some("Maria & Katerina"));
    assert_eq!(meta.site_name.as_deref(), Some("Trip & Tome"));
}

/// The people an article's JSON-LD names win over a meta tag that
/// names the publisher, and over a video's author elsewhere on the
/// page; an organisation named as the article's author does not win
/// over the meta tag's person.
#[test]
fn the_articles_people_win_over_meta_tags() {
    let page = r#"<meta name="author" content="Condé Nast">
        <script type="application/ld+json">{"@type":"VideoObject","author":["Video Desk"]}</script>
        <script type="application/ld+json">{"@type":"NewsArticle","author":[{"@type":"Person","name":"Tom Bennett"},{"@type":"Person","name":"Ann Lee"}]}</script><p>x</p>"#;
    let meta = clean_html(page).unwrap().1;
    assert_eq!(meta.author.as_deref(), Some("Tom Bennett, Ann Lee"));
    assert_eq!(meta.authors, ["Tom Bennett", "Ann Lee"]);
    let org = r#"<meta name="author" content="Jane Doe">
        <script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Organization","name":"BBC News"}}</script><p>x</p>"#;
    let meta = clean_html(org).unwrap().1;
    assert_eq!(meta.author.as_deref(), Some("Jane Doe"));
}

#[test]
fn hostile_inputs_finish() {
    let nested = "<div>".repeat(100_000) + "deep";
    let (_, _, b) = clean_html(&nested).unwrap();
    assert_eq!(b.last().map(|b| b.text.as_str()), Some("deep"));
    let unterminated = "<p>before<!-- never closed <p>after".to_string();
    let (_, _, b) = clean_html(&unterminated).unwrap();
    assert_eq!(b.len(), 1);
    let garbage: String = (0..100_000u32)
        .map(|i| char::from_u32(i % 0xD700).unwrap_or('x'))
        .collect();
    assert!(clean_html(&garbage).is_ok());
}

#[test]
fn noscript_content_is_used_only_when_the_page_has_none() {
    let post = "<div class='post'><p>".to_string()
        + &"A forum reply with real words in it. ".repeat(80)
        + "</p></div>";
    let app = format!("<html><body><div id='app'></div><noscript data-path='/t/1'>{post}</noscript></body></html>");
    let (_, _, blocks) = clean_html(&app).unwrap();
    assert!(
        blocks.iter().any(|b| b.text.starts_with("A forum reply")),
        "{blocks:?}"
    );
    let normal = format!(
        "<html><body><p>{}</p><noscript>{post}</noscript></body></html>",
        "Plenty of text here. ".repeat(40)
    );
    let (_, _, blocks) = clean_html(&normal).unwrap();
    assert!(!blocks.iter().any(|b| b.text.contains("forum reply")));
}

#[test]
fn a_script_rendered_pages_noscript_bylines_are_its_own() {
    // Discourse's crawler view: each post's author in microdata.
    let post = |who: &str| {
        format!(
            "<div itemscope itemtype='http://schema.org/DiscussionForumPosting'>\
             <span class='creator' itemprop='author' itemscope itemtype='http://schema.org/Person'>\
             <a itemprop='url' href='/u/{who}'><span itemprop='name'>{who}</span></a></span>\
             <time itemprop='datePublished' datetime='2024-06-02T15:24:08Z'>Jun 2</time>\
             <p>{}</p></div>",
            "A forum post with real words in it. ".repeat(40)
        )
    };
    let page = format!(
        "<html><head><meta property='og:site_name' content='Forum'></head><body><div id='app'></div>\
         <noscript data-path='/t/1'>{}{}</noscript></body></html>",
        post("PaulWBryant"),
        post("ryshab")
    );
    let (_, meta, _) = clean_html(&page).unwrap();
    assert_eq!(meta.author.as_deref(), Some("PaulWBryant"), "{meta:?}");
    assert_eq!(meta.date.as_deref(), Some("2024-06-02T15:24:08Z"));
    assert_eq!(
        meta.site_name.as_deref(),
        Some("Forum"),
        "the page's own stays"
    );
}

/// A single `<br>` inside an element puts the next text on the next
/// line of the same paragraph; two `<br>`s, or an element between, part
/// paragraphs.
#[test]
fn a_single_br_breaks_the_line_and_two_part_paragraphs() {
    let html = "<html><body><article>\
        <p>These are Headers, Request and<br/>Response, mapped to HTTP<br>\n  concepts.<br><br>Two breaks part them.</p>\
        <p>A paragraph of its own.</p><div>Before a list<ul><li>one</li></ul>after it</div>\
        </article></body></html>";
    let (_, _, blocks) = clean_html(html).unwrap();
    let lines: Vec<(&str, bool)> = blocks
        .iter()
        .map(|b| (b.text.as_str(), b.line_break))
        .collect();
    assert_eq!(
        lines,
        [
            ("These are Headers, Request and", false),
            ("Response, mapped to HTTP", true),
            ("concepts.", true),
            ("Two breaks part them.", false),
            ("A paragraph of its own.", false),
            ("Before a list", false),
            ("one", false),
            ("after it", false),
        ]
    );
}
