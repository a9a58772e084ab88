//! From the chosen blocks to the article: its text and metadata, with the
//! site's learned template and rules (the state a stream of pages shares).

use crate::choice::select_titled;
use crate::date::normalise_date;
use crate::extractor::Extractor;
use crate::features::collapsed;
use crate::join::join_blocks;
use crate::language;
use crate::meta;
use crate::site::{apply_rules, Templates};
use crate::title::{page_title_of, site_name_in_title};
use gleaner_core::messages::{Article, Block, Cleaned, SiteRules};

/// Blocks at the top of the text looked at for a byline or dateline.
const BYLINE_BLOCKS: usize = 3;

/// Most words a byline has besides its authors' names ("By", "and", the
/// agency, a date).
const BYLINE_EXTRA_WORDS: usize = 12;

/// Whether a block is a byline or a dateline: short, and naming the
/// article's author or reading as a date (in any language, from the
/// page's own metadata rather than a list of words such as "By"). The
/// names are compared word by word, so "By Dana A. Ford , James Corey"
/// names "Dana A. Ford, James Corey", and a byline of four authors may be
/// longer than one of one.
fn is_byline(text: &str, author: Option<&str>) -> bool {
    let t = text.trim();
    // A paragraph is no byline, and is not split into words to say so.
    if t.len() > 600 {
        return false;
    }
    let words = gleaner_text::word_count(t);
    if words == 0 {
        return false;
    }
    let lower_words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let names = author
        .map(str::trim)
        .filter(|a| a.chars().count() >= 3)
        .map(lower_words)
        .unwrap_or_default();
    let said = lower_words(t);
    // Word by word, or as written where words run together (a Chinese
    // byline, "记者张小三").
    let names_author = !names.is_empty()
        && said.len() <= names.len() + BYLINE_EXTRA_WORDS
        && (said.windows(names.len()).any(|w| w == names.as_slice())
            || t.to_lowercase()
                .contains(&author.unwrap_or("").trim().to_lowercase()));
    names_author || is_a_dateline(t, words)
}

/// Whether a short line is a date, or a date and when it was updated
/// ("on December 27, 2014 at 12:06 PM, updated December 27, 2014 at
/// 12:10 PM": the first date read alone).
fn is_a_dateline(t: &str, words: usize) -> bool {
    if words <= BYLINE_EXTRA_WORDS && normalise_date(t).is_some() {
        return true;
    }
    if words > 2 * BYLINE_EXTRA_WORDS {
        return false;
    }
    let first = t
        .char_indices()
        .find(|&(i, _)| {
            t[i..]
                .get(..7)
                .is_some_and(|w| w.eq_ignore_ascii_case("updated"))
        })
        .map_or(t, |(i, _)| {
            t[..i].trim_end_matches([',', ';', '|', ' ', '-', '·'])
        });
    gleaner_text::word_count(first) <= BYLINE_EXTRA_WORDS && normalise_date(first).is_some()
}

/// `chosen` without the byline and dateline above the text: they are the
/// article's author and date, not its text. On a page `declared` an
/// article, so are the short lines above a byline that is no sentence (a
/// time, a section's name: "Šodien, 17:40", "Pasaulē"; not a forum post's
/// header), and a byline that is no sentence below a standfirst ("Coal
/// has been in a slow-motion death spiral" / "Nathanael Johnson" /
/// "January 10, 2020 9:00AM (UTC)").
fn without_bylines(
    blocks: &[Block],
    mut chosen: Vec<usize>,
    author: Option<&str>,
    declared: bool,
) -> Vec<usize> {
    let byline = |i: usize| is_byline(&blocks[i].text, author);
    let no_sentence = |i: usize| !gleaner_text::ends_a_sentence(blocks[i].text.trim());
    let top: Vec<bool> = chosen
        .iter()
        .take(BYLINE_BLOCKS)
        .map(|&i| byline(i))
        .collect();
    let leading = match top.iter().rposition(|&b| b) {
        Some(k)
            if declared
                && no_sentence(chosen[k])
                && chosen[..k]
                    .iter()
                    .zip(&top)
                    .all(|(&i, &b)| b || is_a_label(&blocks[i].text)) =>
        {
            k + 1
        }
        _ => top.iter().take_while(|&&b| b).count(),
    };
    chosen.drain(..leading);
    if declared {
        let mut k = 0;
        chosen.retain(|&i| {
            k += 1;
            let near_the_top = k <= BYLINE_BLOCKS + 1;
            !(near_the_top && ((no_sentence(i) && byline(i)) || bio_byline(&blocks[i], author)))
        });
    }
    chosen
}

/// Whether a block is a byline that goes on into its author's bio ("By
/// Alex Heath, a deputy editor and author of the Command Line
/// newsletter. He's covered ..."), in an element named as the byline:
/// its label, then the metadata's author, then a sentence or two. A
/// sentence, so not a byline to [`is_byline`].
fn bio_byline(b: &Block, author: Option<&str>) -> bool {
    let Some(author) = author.map(str::trim).filter(|a| a.chars().count() >= 3) else {
        return false;
    };
    let t = b.text.trim();
    let named = crate::byline::strip_byline_label(t);
    t.len() <= 600
        && named.len() < t.len()
        && crate::tree::near_names(&b.path, &["byline"])
        && named
            .get(..author.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(author))
}

/// Most words of a line above a byline that is no sentence: a time, a
/// section's name.
const LABEL_WORDS: usize = 3;

/// Whether a line is a label rather than text: a few words, no sentence's
/// end.
fn is_a_label(text: &str) -> bool {
    let t = text.trim();
    gleaner_text::word_count(t) <= LABEL_WORDS && !gleaner_text::ends_a_sentence(t)
}

/// `chosen` with each paragraph the page repeats (a teaser above the full
/// text, a responsive copy) said once, and so each short line repeated
/// three times or more in a row outside lists and tables (a slideshow's
/// title on each of its slides; not a shop's "Add to cart" under each
/// item: wcxb-dev labels those, 0.8931 -> 0.8937 counting every repeat,
/// 0.8935 counting runs, every page type at least as before).
fn said_once(blocks: &[Block], chosen: Vec<usize>) -> Vec<usize> {
    let text_of = |k: usize| blocks[chosen[k]].text.as_str();
    let same_as = |j: usize, k: usize| j < chosen.len() && text_of(j) == text_of(k);
    let in_run: Vec<bool> = (0..chosen.len())
        .map(|k| {
            let item = matches!(
                blocks[chosen[k]].tag.as_str(),
                "li" | "td" | "th" | "dd" | "dt"
            );
            !item
                && (k.saturating_sub(2)..=k).any(|start| (start..start + 3).all(|j| same_as(j, k)))
        })
        .collect();
    let mut said = rustc_hash::FxHashSet::default();
    chosen
        .iter()
        .zip(in_run)
        .filter(|&(&i, run)| {
            let t = blocks[i].text.as_str();
            // Code's indentation is no length of its own.
            let long = t.len() >= 40 && collapsed(&blocks[i]).len() >= 40;
            !(long || run) || said.insert(t)
        })
        .map(|(&i, _)| i)
        .collect()
}

/// What extraction keeps per site: learned templates and site rules.
#[derive(Default)]
pub struct SiteState {
    pub templates: Templates,
    pub rules: std::collections::HashMap<String, SiteRules>,
}

/// Extracts the article from a cleaned page, alone.
pub fn extract(cleaned: &Cleaned, which: Extractor) -> Article {
    extract_with(cleaned, which, None)
}

/// Extracts the article from a cleaned page of a stream: the site's
/// template is learned from it (and removed from `auto` and `template`), and
/// the site's rules, if any, win over the generic methods (`auto`, `rules`).
pub fn extract_with(cleaned: &Cleaned, which: Extractor, site: Option<&mut SiteState>) -> Article {
    let host = gleaner_core::util::host_of(&cleaned.url);
    let view = match site {
        Some(st) => site_view(st, &host, cleaned),
        None => SiteView::default(),
    };
    extract_chosen(cleaned, which, view).0
}

/// What a site's state says of one of its pages ([`site_view`]).
#[derive(Default)]
pub(crate) struct SiteView {
    /// Which blocks are the site's learned template.
    pub(crate) template: Vec<bool>,
    /// Whether the page's `<title>` is the site's (the same on its other
    /// pages), so that the headline is read from its heading.
    pub(crate) title_repeats: bool,
    pub(crate) rules: Option<SiteRules>,
}

/// What a site's state says of one of its pages: the blocks of its learned
/// template (learning from this page too) and its rules. The only part of
/// extraction that needs the state, so the rest runs unlocked.
pub(crate) fn site_view(st: &mut SiteState, host: &str, cleaned: &Cleaned) -> SiteView {
    let (template, title_repeats) =
        st.templates
            .observe_titled(host, &cleaned.url, &cleaned.title, &cleaned.blocks);
    SiteView {
        template,
        title_repeats,
        rules: st.rules.get(host).cloned(),
    }
}

/// The article given the site's view, and the blocks that make up the text.
/// A URL the page gives, made absolute against the address it was fetched
/// from.
fn absolute(cleaned: &Cleaned, href: &str) -> Option<String> {
    gleaner_core::util::absolute_url(cleaned.address(), href)
}

/// The lead image where the metadata names none: the page's first image
/// ([`PageMeta::images`](gleaner_core::messages::PageMeta)) in the chosen
/// text or just above it (a picture under the headline, before the first
/// paragraph), made absolute.
fn lead_image(cleaned: &Cleaned, chosen: &[usize]) -> Option<String> {
    /// Blocks above the text an image may sit in (a headline, a
    /// standfirst) and still lead it.
    const ABOVE: usize = 3;
    let first = *chosen.iter().min()?;
    let last = *chosen.iter().max()?;
    cleaned
        .meta
        .images
        .iter()
        .filter(|i| (first.saturating_sub(ABOVE)..=last).contains(&(i.before_block as usize)))
        .find_map(|i| absolute(cleaned, &i.src))
}

pub(crate) fn extract_chosen(
    cleaned: &Cleaned,
    which: Extractor,
    view: SiteView,
) -> (Article, Vec<usize>) {
    let SiteView {
        template,
        title_repeats,
        rules,
    } = view;
    let title = page_title_of(cleaned, title_repeats);
    let mut chosen = select_titled(cleaned, which, &template, &title);
    if let (Some(r), Extractor::Auto | Extractor::Rules) = (&rules, which) {
        chosen = apply_rules(r, &cleaned.blocks, chosen);
    }
    let chosen = said_once(&cleaned.blocks, chosen);
    let chosen = crate::ad_labels::without_ad_labels(&cleaned.blocks, chosen);
    let meta = &cleaned.meta;
    let author = meta::author(cleaned);
    let date = meta
        .date
        .as_deref()
        .and_then(normalise_date)
        .or_else(|| crate::page_date::page_date(cleaned));
    let declared = crate::boundary::declared(cleaned);
    let chosen = without_bylines(&cleaned.blocks, chosen, author.as_deref(), declared);
    let site_name = meta
        .site_name
        .clone()
        .or_else(|| site_name_in_title(cleaned, &title));
    // A byline or a meta tag names several people in one line.
    let authors = match (&author, meta.authors.is_empty()) {
        (Some(line), true) => crate::people::people(line, site_name.as_deref()),
        (None, true) => Vec::new(),
        (_, false) => meta.authors.clone(),
    };
    // A forum's or a question's posts open with whom they like.
    let chosen = match crate::comments::is_discussion(meta.page_type.as_deref()) {
        true => chosen,
        false => crate::bios::without_author_bio(&cleaned.blocks, &authors, chosen),
    };
    let text = join_blocks(&cleaned.blocks, &chosen);
    let article = Article {
        id: cleaned.id.clone(),
        url: cleaned.url.clone(),
        site_name,
        title,
        author: author.clone(),
        date,
        language: language::of_article(meta.language.as_deref(), &text),
        text,
        extractor: which.name().to_string(),
        fetched_at: cleaned.fetched_at.clone(),
        cluster: None,
        story: None,
        authors,
        canonical_url: meta
            .canonical_url
            .as_deref()
            .and_then(|u| absolute(cleaned, u)),
        image: meta
            .image
            .as_deref()
            .and_then(|u| absolute(cleaned, u))
            .or_else(|| lead_image(cleaned, &chosen)),
    };
    (article, chosen)
}

#[cfg(test)]
mod tests {
    use super::{bio_byline, is_byline, without_bylines};
    use crate::Extractor;

    /// In a stream of one host's pages that all have the same `<title>`
    /// (a single-page app's), the third and later take their headline
    /// from their heading; a page alone keeps the title.
    #[test]
    fn a_title_every_page_of_a_site_has_names_no_article() {
        let mut site = crate::SiteState::default();
        let titles: Vec<String> = ["Bridge reopens", "Ferry fares rise", "Port record"]
            .iter()
            .enumerate()
            .map(|(n, h)| {
                let html = format!(
                    "<html><head><title>Quay - The heart of the harbour</title></head><body>\
                     <h1>{h}</h1><p>The council said on Monday that {h} after months of talks, and the city welcomed it.</p></body></html>"
                );
                let mut c = crate::meta::tests::page_of(&html);
                c.url = format!("https://quay.test/{n}");
                crate::extract_with(&c, Extractor::Auto, Some(&mut site)).title
            })
            .collect();
        assert_eq!(titles[0], "The heart of the harbour");
        assert_eq!(titles[2], "Port record");
    }

    /// The article carries its authors, publication, canonical URL and
    /// lead image, the URLs made absolute against where the page was
    /// fetched; a `data:` image or a script URL is none.
    #[test]
    fn an_article_carries_its_publication_canonical_url_and_image() {
        let html = r#"<html><head><link rel="canonical" href="/news/bridge">
            <meta property="og:image" content="img/lead.jpg">
            <meta property="og:site_name" content="Harbour Times">
            <script type="application/ld+json">{"@type":"NewsArticle","author":[{"name":"Mara Olsen"},{"name":"Ken Ito"}]}</script>
            </head><body><h1>Bridge reopens</h1><p>The harbour bridge reopened on Monday after eight months of repairs, the council said.</p></body></html>"#;
        let mut c = crate::meta::tests::page_of(html);
        c.url = "http://example.com/a/b?x=1".into();
        c.final_url = "https://www.example.com/a/b".into();
        let a = crate::extract(&c, Extractor::Auto);
        assert_eq!(a.authors, ["Mara Olsen", "Ken Ito"]);
        assert_eq!(a.author.as_deref(), Some("Mara Olsen, Ken Ito"));
        assert_eq!(a.site_name.as_deref(), Some("Harbour Times"));
        assert_eq!(
            a.canonical_url.as_deref(),
            Some("https://www.example.com/news/bridge")
        );
        assert_eq!(
            a.image.as_deref(),
            Some("https://www.example.com/a/img/lead.jpg")
        );
        c.meta.image = Some("data:image/png;base64,AAAA".into());
        c.meta.canonical_url = Some("javascript:void(0)".into());
        let a = crate::extract(&c, Extractor::Auto);
        assert_eq!((a.image, a.canonical_url), (None, None));
    }

    /// Without an `og:image`, the lead image is the first picture in the
    /// text or just above it; a picture far above it (a header's promo)
    /// is not.
    #[test]
    fn the_lead_image_is_the_texts_first_picture_where_the_metadata_names_none() {
        let menu = "<li><a href='/x'>Section</a></li>".repeat(12);
        let story = "<p>The harbour bridge reopened on Monday after eight months of repairs, the council said, and traffic is back.</p>".repeat(4);
        let page = |figure: &str| {
            format!("<html><body><div><img src='/promo/sale.jpg'></div><ul>{menu}</ul><h1>Bridge reopens</h1>{figure}{story}</body></html>")
        };
        let mut c = crate::meta::tests::page_of(&page("<figure><img src='/img/bridge.jpg' width='800'><figcaption>The bridge</figcaption></figure>"));
        c.final_url = "https://example.com/news/bridge".into();
        let a = crate::extract(&c, Extractor::Auto);
        assert_eq!(
            a.image.as_deref(),
            Some("https://example.com/img/bridge.jpg")
        );
        let mut c = crate::meta::tests::page_of(&page(""));
        c.final_url = "https://example.com/news/bridge".into();
        assert_eq!(crate::extract(&c, Extractor::Auto).image, None);
    }

    /// An author line naming several people gives a list of them, the
    /// network at its end left out; the line stays whole in `author`.
    #[test]
    fn an_author_line_of_several_people_is_a_list() {
        let html = r#"<html><head><title>Bridge reopens</title>
            <meta name="author" content="Mara Olsen, Ken Ito and Ana García, CNN"></head><body><h1>Bridge reopens</h1>
            <p>The harbour bridge reopened on Monday after eight months of repairs, the council said in a statement.</p>
            <p>Engineers replaced more than four hundred bolts and repainted the whole span over the winter months.</p></body></html>"#;
        let a = crate::extract(&crate::meta::tests::page_of(html), Extractor::Auto);
        assert_eq!(a.authors, ["Mara Olsen", "Ken Ito", "Ana García"]);
        assert_eq!(
            a.author.as_deref(),
            Some("Mara Olsen, Ken Ito and Ana García, CNN")
        );
    }

    /// A repeated paragraph and a short line repeated in a row are said
    /// once; a short line repeated apart, or in list items, each time.
    #[test]
    fn repeats_are_said_once() {
        use gleaner_core::messages::Block;
        let b = |text: &str, tag: &str| Block {
            text: text.into(),
            tag: tag.into(),
            ..Default::default()
        };
        let long = "The harbour bridge reopened on Monday after eight months of repairs.";
        let blocks = vec![
            b(long, "p"),
            b("Weather threatens holiday plans", "div"),
            b("Weather threatens holiday plans", "div"),
            b("Weather threatens holiday plans", "div"),
            b(long, "p"),
            b("Add to cart", "div"),
            b("Blue mug", "div"),
            b("Add to cart", "div"),
            b("Add to cart", "li"),
            b("Add to cart", "li"),
            b("Add to cart", "li"),
        ];
        assert_eq!(
            super::said_once(&blocks, (0..blocks.len()).collect()),
            vec![0, 1, 5, 6, 7, 8, 9, 10]
        );
    }

    /// Webflow's empty paragraphs (a zero-width joiner alone) and the
    /// joiner opening a paragraph leave no trace in the text.
    #[test]
    fn zero_width_joiners_leave_no_empty_paragraphs() {
        let long = "The harbour bridge reopened to traffic on Monday after eight months of repairs to its deck.";
        let html = format!(
            "<html><body><article><h1>Bridge</h1><p>{long}</p><p>\u{200d}</p>\
             <p>\u{200d}Engineers replaced four hundred bolts and repainted the span, the office said.</p>\
             <p>&zwj;</p><p>{long} Commuters welcomed the news.</p></article></body></html>"
        );
        let a = crate::extract(&crate::meta::tests::page_of(&html), Extractor::Auto);
        assert!(a.text.contains("\n\nEngineers replaced"), "{:?}", a.text);
        assert!(!a.text.contains('\u{200d}'), "{:?}", a.text);
        assert!(!a.text.contains("\n\n\n"), "{:?}", a.text);
    }

    /// Code keeps its lines and indentation when a highlighter writes a
    /// line per element, and a short line of it said twice (the same
    /// call in two listings) is said twice.
    #[test]
    fn code_keeps_its_lines_in_the_article() {
        let long = "The harbour bridge reopened to traffic on Monday after eight months of repairs to its deck.";
        let line = "                let count = tally(&bridge);";
        let html = format!(
            "<html><body><article><h1>Bridge</h1><p>{long}</p>\
             <pre><code><div>fn main() {{</div><div>{line}</div><div>}}</div></code></pre>\
             <p>{long} Commuters welcomed the news.</p>\
             <pre><code><div>fn again() {{</div><div>{line}</div><div>}}</div></code></pre>\
             <p>Engineers replaced four hundred bolts and repainted the span, the office said.</p></article></body></html>"
        );
        let a = crate::extract(&crate::meta::tests::page_of(&html), Extractor::Auto);
        assert!(
            a.text
                .contains(&format!("fn main() {{\n{line}\n}}\n\n{long}")),
            "{:?}",
            a.text
        );
        assert!(
            a.text.contains(&format!("fn again() {{\n{line}\n}}")),
            "{:?}",
            a.text
        );
    }

    /// A byline that goes on into a bio, in the byline's element, goes
    /// from a declared article; a paragraph that starts "By" and names
    /// the author outside one stays, and so does any on other pages.
    #[test]
    fn a_byline_with_its_authors_bio_goes() {
        let mut page = crate::testing::paragraphs(&[
            "By Alex Heath, a deputy editor and author of the Command Line newsletter. He has covered the tech industry for a decade.",
            "I tried the headset for a week, and there is no going back from here.",
            "By Alex Heath's count, the launch was the biggest in years.",
        ]);
        page[0].path = "html/body/article/p.duet--article--article-byline".into();
        let author = Some("Alex Heath");
        assert!(bio_byline(&page[0], author));
        assert!(!bio_byline(&page[2], author));
        assert_eq!(
            without_bylines(&page, vec![0, 1, 2], author, true),
            vec![1, 2]
        );
        assert_eq!(
            without_bylines(&page, vec![0, 1, 2], author, false),
            vec![0, 1, 2]
        );
        assert!(!bio_byline(&page[0], None));
    }

    #[test]
    fn a_byline_names_the_author_or_reads_as_a_date() {
        assert!(is_byline("By Mara Olsen · 2026-03-02", Some("Mara Olsen")));
        assert!(is_byline("Von Anna Schmidt", Some("anna schmidt")));
        assert!(is_byline("2026-03-02", None));
        assert!(is_byline(
            "on December 27, 2014 at 12:06 PM, updated December 27, 2014 at 12:10 PM",
            None
        ));
        assert!(is_byline("Last updated on September 16th, 2023", None));
        // A sentence that names the author is text.
        assert!(!is_byline(
            "Mara Olsen, who has covered the harbour for ten years, watched the first buses cross the bridge on Monday.",
            Some("Mara Olsen")
        ));
        assert!(!is_byline("The bridge reopened.", Some("Mara Olsen")));
        assert!(!is_byline("By the harbour", None));
        // Four authors and an agency, a space before a comma.
        assert!(is_byline(
            "By Dana A. Ford , James S.A. Corey, Chien-Ming Wang, and Tom Watkins, CNN",
            Some("Dana A. Ford, James S.A. Corey, Chien-Ming Wang, and Tom Watkins, CNN")
        ));
        assert!(is_byline(
            "November 28, 2013 -- Updated 0203 GMT (1003 HKT)",
            None
        ));
        // Words run together, as a Chinese byline writes them.
        assert!(is_byline("记者张小三报道", Some("张小三")));
    }
}
