use super::*;
use crate::meta::tests::page_of;

fn cleaned(title: &str, h1: &str) -> Cleaned {
    page_of(&format!("<html><head><title>{title}</title></head><body><h1>{h1}</h1><p>Body text.</p></body></html>"))
}

#[test]
fn a_titles_site_name_names_the_site() {
    let site =
        |title: &str, headline: &str| site_name_in_title(&cleaned(title, headline), headline);
    assert_eq!(
        site("Story of the bridge | Quay Notes", "Story of the bridge").as_deref(),
        Some("Quay Notes")
    );
    assert_eq!(
        site("Quay Notes - Story of the bridge", "Story of the bridge").as_deref(),
        Some("Quay Notes")
    );
    assert_eq!(
        site("Story - the bridge | Quay Notes", "Story - the bridge").as_deref(),
        Some("Quay Notes")
    );
    assert_eq!(
        site("Story of the bridge [Quay]", "Story of the bridge").as_deref(),
        Some("Quay")
    );
    // No separator, or a headline the title does not hold: no name.
    assert_eq!(site("Story of the bridge", "Story of the bridge"), None);
    assert_eq!(
        site("Other story | Quay Notes", "Story of the bridge"),
        None
    );
    // A long part is another headline, not a site's name.
    assert_eq!(
        site("Story | A much longer second line of it", "Story"),
        None
    );
}

/// A title's last part that names the host is the site's, where no
/// `og:site_name` says so; a product named for its maker stays.
#[test]
fn a_part_naming_the_host_is_the_sites() {
    let on = |url: &str, title: &str| {
        let mut c = page_of(&format!(
            "<html><head><title>{title}</title></head><body><p>Body text.</p></body></html>"
        ));
        c.final_url = url.to_string();
        page_title(&c)
    };
    assert_eq!(
        on(
            "https://promotions.newegg.com/x",
            "GAME CHANGER | Newegg.com"
        ),
        "GAME CHANGER"
    );
    assert_eq!(
        on(
            "https://www.aura.com/",
            "Identity Theft Protection | Aura Official Site"
        ),
        "Identity Theft Protection"
    );
    assert_eq!(
        on(
            "https://mikekhorev.com/",
            "Hire an Independent SEO Expert - Mike Khorev"
        ),
        "Hire an Independent SEO Expert"
    );
    assert_eq!(
        on(
            "https://www.soundstagexperience.com/x",
            "SoundStageXperience.com - The Five Best Headphones"
        ),
        "The Five Best Headphones"
    );
    // A first part that goes on past the host's name is the headline's.
    let title = "Digjitale Signal #18 – The World Without Work?";
    assert_eq!(without_host_part(title, Some("digjitale")), title);
    assert_eq!(
        on("https://www.nintendo.com/p", "Nintendo Switch - OLED Model"),
        "Nintendo Switch - OLED Model"
    );
    assert_eq!(
        on("https://example.org/", "GAME CHANGER | Newegg.com"),
        "GAME CHANGER | Newegg.com"
    );
}

#[test]
fn site_names_are_cut_from_titles() {
    // A CJK headline is one "word" between spaces, and still the
    // longer part.
    assert_eq!(
        strip_site_name("港口大桥经过八个月维修后重新开放 | Quay Notes", ""),
        "港口大桥经过八个月维修后重新开放"
    );
    assert_eq!(
        strip_site_name("Best Cloud Stocks of 2025 | The Motley Fool", ""),
        "Best Cloud Stocks of 2025"
    );
    assert_eq!(
        strip_site_name(
            "Example News - Harbour bridge reopens after repairs",
            "Example News"
        ),
        "Harbour bridge reopens after repairs"
    );
    assert_eq!(
        strip_site_name("Rock - Paper - Scissors", ""),
        "Rock - Paper - Scissors"
    );
    assert_eq!(strip_site_name("Plain title", ""), "Plain title");
    assert_eq!(
        strip_site_name("Weekly Edition for March 26 [LWN.net]", ""),
        "Weekly Edition for March 26"
    );
    assert_eq!(strip_site_name("[Draft]", ""), "[Draft]");
}

/// A heading made of the title's last part alone is the site's name;
/// a documentation page's heading is its first part.
#[test]
fn a_heading_that_is_the_titles_site_part_is_not_the_headline() {
    let c = cleaned(
        "新竹尖石 美樹營地賞楓 (2) @ 史蒂文的家 :: 痞客邦 PIXNET ::",
        "痞客邦 PIXNET",
    );
    assert_eq!(page_title(&c), "新竹尖石 美樹營地賞楓 (2) @ 史蒂文的家");
    let c = cleaned("Quickstart — Flask Documentation (3.1.x)", "Quickstart");
    assert_eq!(page_title(&c), "Quickstart");
    // The bracketed site name, with a word of its own ("beta").
    let c = cleaned(
        "Lost at Sea - Chapter 2 - Mira [Story Archive]",
        "Story Archive beta",
    );
    assert_eq!(
        page_title(&c),
        "Lost at Sea",
        "from the <title>, not the heading"
    );
}

/// Two headings share as many words with the title: the headline is
/// the one from its first part, not the project's name after it.
#[test]
fn a_tie_goes_to_the_heading_of_the_titles_first_part() {
    let c = page_of(
        "<html><head><title>Evolve: Shared Mutable History — evolve extension for \
         Mercurial</title></head><body><h1>evolve extension for Mercurial</h1>\
         <h1>Evolve: Shared Mutable History</h1><p>Body text.</p></body></html>",
    );
    assert_eq!(page_title(&c), "Evolve: Shared Mutable History");
}

#[test]
fn the_headline_is_the_title_when_it_shares_most_words_with_it() {
    // Reworded in <title>: still the headline (the features' title,
    // which wants it verbatim, falls back to <title>).
    let c = cleaned(
        "Bridge reopens after repairs | Harbour Times",
        "Harbour bridge reopens after long repairs",
    );
    assert_eq!(page_title(&c), "Harbour bridge reopens after long repairs");
    assert_eq!(feature_title(&c), "Bridge reopens after repairs");
    // A heading that is not the headline.
    let c = cleaned(
        "Bridge reopens after repairs | Harbour Times",
        "Latest news",
    );
    assert_eq!(page_title(&c), "Bridge reopens after repairs");
}

/// The site's name the heading holds after the headline is cut off
/// (a logo link inside the `<h1>`, its text glued to the headline's,
/// or the declared name after a separator); a headline that ends in
/// the name after a space keeps it.
#[test]
fn a_site_name_after_the_headline_in_its_heading_is_cut_off() {
    // The `<title>` names the site; og:title, as here, often does not.
    let c = page_of(
        "<html><head><title>Anticorrupción decidirá en Madrid si recurre » Local » \
        Ultima Hora Mallorca</title><meta property='og:title' content='Anticorrupción \
        decidirá en Madrid si recurre'></head><body><h1><span>Anticorrupción decidirá en \
        Madrid si recurre</span><a href='/'>Ultima Hora Mallorca</a></h1><p>Body.</p></body></html>",
    );
    assert_eq!(
        page_title(&c),
        "Anticorrupción decidirá en Madrid si recurre"
    );
    let c = page_of(
        "<html><head><title>Harbour bridge reopens | Harbour Times</title>\
        <meta property='og:site_name' content='Harbour Times'></head>\
        <body><h1>Harbour bridge reopens | Harbour Times</h1><p>Body.</p></body></html>",
    );
    assert_eq!(page_title(&c), "Harbour bridge reopens");
    // The title's last part after a separator may be the headline's
    // own subtitle.
    let c = cleaned(
        "Content Depth — Write About Your Core Topics",
        "Content Depth — Write About Your Core Topics",
    );
    assert_eq!(
        page_title(&c),
        "Content Depth — Write About Your Core Topics"
    );
    let c = page_of(
        "<html><head><title>Everything new from Apple | Apple</title>\
        <meta property='og:site_name' content='Apple'></head>\
        <body><h1>Everything new from Apple</h1><p>Body.</p></body></html>",
    );
    assert_eq!(page_title(&c), "Everything new from Apple");
}

#[test]
fn the_sites_own_heading_is_not_the_headline() {
    // A blog's name in an <h1> above the post, its <title> prefixed
    // with it: og:title says which is the article's.
    let c = page_of("<html><head><title>Silicon Notes: Open flow for programmable logic</title>\
        <meta property='og:title' content='Open flow for programmable logic'></head>\
        <body><h1>Silicon Notes</h1><h3>Open flow for programmable logic</h3><p>Body.</p></body></html>");
    assert_eq!(page_title(&c), "Open flow for programmable logic");
    // The site's heading first, the article's second: the one sharing
    // more of the title.
    let c = page_of("<html><head><title>Standalone binaries using Emscripten · V8</title></head>\
        <body><h1>V8</h1><h1>Outside the web: standalone binaries using Emscripten</h1><p>Body.</p></body></html>");
    assert_eq!(
        page_title(&c),
        "Outside the web: standalone binaries using Emscripten"
    );
    // A heading made of the site's name (og:site_name).
    let c = page_of(
        "<html><head><title>Update news | Minecraft News</title>\
        <meta property='og:site_name' content='Minecraft News'></head>\
        <body><h1>Minecraft News</h1><p>Body.</p></body></html>",
    );
    assert_eq!(page_title(&c), "Update news");
    // A forum's name in its <h1> that the thread's title names too:
    // all of it in the title's last part, little of it in the rest.
    let c = cleaned(
        "What happened with Arch Linux ISO in 2024 / Arch Discussion / Arch Linux Forums",
        "Arch Linux",
    );
    assert_eq!(page_title(&c), "What happened with Arch Linux ISO in 2024");
    let c = cleaned(
        "Discuss the VirtualBox 7.1.0 release here - virtualbox.org",
        "virtualbox.org",
    );
    assert_eq!(page_title(&c), "Discuss the VirtualBox 7.1.0 release here");
    // A heading that says most of the story stays the headline.
    let c = cleaned(
        "Harbour bridge reopens - Harbour Bridge News",
        "Harbour bridge",
    );
    assert_eq!(page_title(&c), "Harbour bridge");
}

#[test]
fn a_title_the_site_repeats_gives_way_to_the_heading() {
    let c = cleaned(
        "Reddit - The heart of the internet",
        "Enameled cast iron pan and metal",
    );
    // Alone, the page's heading shares nothing with its title.
    assert_eq!(page_title(&c), "The heart of the internet");
    assert_eq!(page_title_of(&c, true), "Enameled cast iron pan and metal");
    // A heading of the title's words or of the site's name is no
    // headline of its own: the next one is.
    let c = page_of(
        "<html><head><title>Reddit - The heart of the internet</title></head>\
        <body><h1>Reddit</h1><h1>Enameled cast iron pan</h1><p>Body.</p></body></html>",
    );
    assert_eq!(page_title_of(&c, true), "Enameled cast iron pan");
    let c = page_of(
        "<html><head><title>Quay - The heart of the harbour</title>\
        <meta property='og:site_name' content='Quay News'></head>\
        <body><h1>Quay News</h1><h1>Bridge reopens</h1><p>Body.</p></body></html>",
    );
    assert_eq!(page_title_of(&c, true), "Bridge reopens");
    // With no heading of its own, the title is read as on any page.
    let c = cleaned("Reddit - The heart of the internet", "Reddit");
    assert_eq!(page_title_of(&c, true), page_title(&c));
}

/// A headline set on lines of its own (`<br>` in the `<h1>`) is one
/// title; two headings one after another stay two.
#[test]
fn a_headline_broken_into_lines_is_one_title() {
    let c = page_of(
        "<html><head><title>Weekend Coding Agent | TheFocus.AI Labs</title></head>\
        <body><h1>WEEKEND<br>CODING<br> <span>AGENT</span></h1><p>Body text.</p></body></html>",
    );
    assert_eq!(page_title(&c), "Weekend Coding Agent");
    let c = page_of(
        "<html><head><title>Bridge reopens | Quay News</title></head>\
        <body><h1>Quay News</h1><h1>Bridge reopens</h1><p>Body.</p></body></html>",
    );
    assert_eq!(page_title(&c), "Bridge reopens");
    // A byline set in the headline's element under a <br> is not the
    // headline's.
    let c = page_of(
        "<html><head><title>米朝首脳直通電話　習氏に挑むトランプ戦術の成否：日本経済新聞</title></head>\
        <body><h1>米朝首脳直通電話 習氏に挑むトランプ戦術の成否<br><span>編集委員 中沢克二</span></h1><p>本文。</p></body></html>",
    );
    assert_eq!(
        page_title(&c),
        "米朝首脳直通電話 習氏に挑むトランプ戦術の成否"
    );
}

/// The few words an `<h1>` sets before the headline that neither title
/// has go: a label, a date, a section's name; a leading "The" stays.
#[test]
fn a_label_before_the_headline_goes() {
    for (title, h1, expected) in [
        (
            "What do you pay attention to when buying hosting? - Web Hosting Talk",
            "Thread: What do you pay attention to when buying hosting?",
            "What do you pay attention to when buying hosting?",
        ),
        (
            "Preparing a transition in Debusine | Colin Watson's blog",
            "Dec 18 2025 Preparing a transition in Debusine",
            "Preparing a transition in Debusine",
        ),
        (
            "Best Home Security Cameras of 2026 | Security.org",
            "The Best Home Security Cameras of 2026",
            "The Best Home Security Cameras of 2026",
        ),
        (
            "In The News | Harbour School",
            "Our Programs in the News",
            "Our Programs in the News",
        ),
    ] {
        assert_eq!(page_title(&cleaned(title, h1)), expected, "{h1}");
    }
    // arXiv's descriptor, glued to the title, and og:title without it.
    let c = page_of(
        "<html><head><title>[2512.16245] AlignMerge - Alignment-Preserving Model Merging</title>\
        <meta property='og:title' content='AlignMerge - Alignment-Preserving Model Merging'></head>\
        <body><h1><span>Title:</span>AlignMerge - Alignment-Preserving Model Merging</h1><p>Abstract.</p></body></html>",
    );
    assert_eq!(
        page_title(&c),
        "AlignMerge - Alignment-Preserving Model Merging"
    );
}

/// Capitals are the headline's style when the titles spell it otherwise;
/// a headline in capitals that no title spells stays as it is.
#[test]
fn a_headline_in_capitals_is_written_as_its_titles_write_it() {
    let c = cleaned(
        "Best Drip Coffee Maker | Brew Lab",
        "BEST DRIP COFFEE MAKER",
    );
    assert_eq!(page_title(&c), "Best Drip Coffee Maker");
    let c = cleaned("Nasa tests coffee in orbit | Brew Lab", "NASA TESTS COFFEE");
    assert_eq!(page_title(&c), "NASA TESTS COFFEE");
}
