//! The extract stage: finds the main content among a cleaned page's blocks.
//!
//! Two methods from the seed papers, and their combination (the default):
//! - `qread`: blocks that are empty of prose (short or link-heavy) act as the
//!   paper's empty lines; runs of at least θ = 3 of them split the page into
//!   segments, and the segment of highest word density (words per non-empty
//!   line), weighted by its cosine similarity with the title, wins.
//! - `density`: text density with link text penalised (after CETD's
//!   composite density), summed over the contiguous run of blocks with the
//!   largest total, so short blocks inside an article stay with it while link
//!   lists and boilerplate around it fall away.
//! - `auto`: the density region, widened by the qRead segment where the two
//!   overlap, plus a heading just before it that matches the title.

mod ad_labels;
mod article;
mod bios;
mod boundary;
mod byline;
mod choice;
mod comments;
mod credits;
mod date;
mod error_reports;
mod extractor;
mod features;
mod forms;
mod gaps;
mod inserts;
mod join;
mod language;
mod lines;
mod list_headings;
mod meta;
mod model;
mod page_date;
mod people;
mod post_chrome;
mod recirculation;
mod reviews;
mod settings;
mod signals;
mod site;
mod stage;
mod teasers;
#[cfg(test)]
mod testing;
mod title;
mod tree;

pub use article::{extract, extract_with, SiteState};
pub use choice::{auto_scores, feature_rows, select, FeatureRows};
pub use date::normalise_date;
pub use extractor::Extractor;
pub use join::join_blocks;
pub use language::detect as detect_language;
pub use settings::ExtractSettings;
pub use site::{apply_rules, Templates};
pub use stage::{ExtractSpec, ExtractStage};
pub use title::{page_title, strip_site_name};

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_core::messages::Cleaned;

    /// A page of `html` at http://x.test/a, as clean makes it.
    pub(crate) fn page(html: &str) -> Cleaned {
        let (title, meta, blocks) = gleaner_clean::clean_html(html).unwrap();
        Cleaned {
            id: "x".into(),
            url: "http://x.test/a".into(),
            final_url: "http://x.test/a".into(),
            fetched_at: String::new(),
            title,
            meta,
            blocks,
        }
    }

    const NEWS: &str = r#"<html><head><title>Harbour bridge reopens after repairs | Daily Gazette</title></head><body>
        <nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li><li><a href="/business">Business</a></li></ul></nav>
        <div class="promo"><a href="/subscribe">Subscribe now for unlimited access to all our stories</a></div>
        <article><h1>Harbour bridge reopens after repairs</h1>
        <p class="byline">By Jane Doe</p>
        <p>The harbour bridge reopened to traffic on Monday after eight months of repairs that cost the city more than forty million dollars.</p>
        <p>Engineers replaced the worn cables and resurfaced the deck, and the mayor said the work would keep the bridge safe for another fifty years.</p>
        <p>Commuters who had faced long detours welcomed the news, although some said the tolls, which rise next month, were too high.</p>
        </article>
        <aside><h3>Most read</h3><ul><li><a href="/a">Storm warning for the coast this weekend</a></li><li><a href="/b">Council votes on new budget</a></li><li><a href="/c">Local team wins the cup</a></li></ul></aside>
        <footer><p>© 2026 Daily Gazette. All rights reserved.</p><p><a href="/about">About</a> | <a href="/contact">Contact</a> | <a href="/privacy">Privacy</a></p></footer>
        </body></html>"#;

    /// The classifier's scores, as `examples/blocks --scores` prints them:
    /// one a block, the article's paragraphs above the menu, the "most
    /// read" list and the footer, and the menu (chrome) at 0.
    #[test]
    fn auto_scores_rank_the_article_above_the_chrome() {
        let cleaned = page(NEWS);
        let scores = auto_scores(&cleaned).expect("weights are bundled");
        assert_eq!(scores.len(), cleaned.blocks.len());
        let score_of = |needle: &str| {
            let i = cleaned.blocks.iter().position(|b| b.text.contains(needle));
            scores[i.unwrap_or_else(|| panic!("no block holds {needle:?}"))]
        };
        assert_eq!(score_of("Sport"), 0.0);
        let body = score_of("eight months of repairs");
        for boiler in ["Storm warning", "All rights reserved"] {
            assert!(body > score_of(boiler), "{boiler:?}: {scores:?}");
        }
    }

    #[test]
    fn every_method_finds_the_article_body() {
        for which in [
            Extractor::Auto,
            Extractor::QRead,
            Extractor::Density,
            Extractor::LinkRatio,
            Extractor::Lines,
        ] {
            let a = extract(&page(NEWS), which);
            assert!(
                a.text.contains("eight months of repairs"),
                "{which:?}: {}",
                a.text
            );
            assert!(
                a.text.contains("tolls, which rise next month"),
                "{which:?}: {}",
                a.text
            );
            for boiler in [
                "Subscribe now",
                "Storm warning",
                "All rights reserved",
                "Privacy",
                "Sport",
            ] {
                assert!(
                    !a.text.contains(boiler),
                    "{which:?} kept {boiler:?}: {}",
                    a.text
                );
            }
        }
    }

    #[test]
    fn an_unclosed_banner_aside_is_not_chrome_for_the_whole_page() {
        // An <aside> banner whose end tag is missing holds the whole page
        // (browsers agree); the article in it is still the article.
        let broken = NEWS.replacen(
            "<nav>",
            "<aside class='announcement'><div><a href='/news'>We have news</a></div><nav>",
            1,
        );
        let broken = broken.replacen("</aside>", "</div>", 1);
        let c = page(&broken);
        let aside_blocks = c
            .blocks
            .iter()
            .filter(|b| b.path.contains("/aside"))
            .count();
        assert_eq!(aside_blocks, c.blocks.len(), "the aside holds every block");
        let a = extract(&c, Extractor::Auto);
        assert!(a.text.contains("eight months of repairs"), "{}", a.text);
    }

    #[test]
    fn auto_puts_the_headline_in_the_title_not_the_text() {
        let a = extract(&page(NEWS), Extractor::Auto);
        assert!(
            a.text.starts_with("The harbour bridge reopened to traffic"),
            "{}",
            a.text
        );
        assert!(!a.text.contains("Harbour bridge reopens after repairs"));
        assert_eq!(a.title, "Harbour bridge reopens after repairs");
        assert_eq!(a.language.as_deref(), Some("en"));
    }

    /// On a page declared an article, a time and a section's name above
    /// the byline go with it, and a byline below a standfirst; not on a
    /// page of another type.
    #[test]
    fn the_labels_above_a_byline_go_with_it() {
        let labelled = NEWS
            .replacen(
                "<title>",
                "<meta property='og:type' content='article'>\
                 <meta name='author' content='Jane Doe'><title>",
                1,
            )
            .replacen(
                "<p class=\"byline\">By Jane Doe</p>",
                "<p>Today, 17:40</p><p>World</p>\
                 <p>Authors: Jane Doe (foreign news editor)</p>",
                1,
            );
        let a = extract(&page(&labelled), Extractor::Auto);
        assert!(
            a.text.starts_with("The harbour bridge reopened to traffic"),
            "{}",
            a.text
        );
        assert_eq!(a.author.as_deref(), Some("Jane Doe"));
        // A byline and a dateline under a standfirst go too.
        let standfirst = labelled.replacen(
            "<p>Today, 17:40</p><p>World</p>",
            "<p>Engineers say the cables will last fifty years</p>",
            1,
        );
        let standfirst = standfirst.replacen(
            "<p>Authors: Jane Doe (foreign news editor)</p>",
            "<p>Jane Doe</p><p>March 2, 2026 9:00AM (UTC)</p>",
            1,
        );
        let a = extract(&page(&standfirst), Extractor::Auto);
        assert!(
            a.text
                .starts_with("Engineers say the cables will last fifty years\n\nThe harbour"),
            "{}",
            a.text
        );
        let undeclared = labelled.replacen("content='article'", "content='website'", 1);
        let a = extract(&page(&undeclared), Extractor::Auto);
        assert!(a.text.starts_with("Today, 17:40"), "{}", a.text);
    }

    #[test]
    fn cjk_text_counts_characters() {
        let html = "<html><head><title>新しい橋が開通</title></head><body><nav><a href='/'>ホーム</a><a href='/n'>ニュース</a></nav>\
            <p>市内の新しい橋が月曜日に開通し、多くの通勤者が朝から利用した。工事は八か月続き、費用は四十億円を超えた。</p>\
            <p>市長は、この橋が今後五十年にわたり安全に使えると述べた。通行料は来月から値上げされる予定である。</p>\
            <footer><a href='/about'>会社概要</a><a href='/privacy'>プライバシー</a></footer></body></html>";
        let a = extract(&page(html), Extractor::Auto);
        assert!(a.text.contains("工事は八か月続き"), "{}", a.text);
        assert!(!a.text.contains("プライバシー"), "{}", a.text);
        assert_eq!(a.language.as_deref(), Some("ja"));
    }

    /// A stream of pages from one site, each with a long boilerplate
    /// paragraph (no links, prose-like) right after the story: density
    /// keeps it, the learned template removes it from the third page on.
    #[test]
    fn site_template_removes_boilerplate_density_keeps() {
        let legal = "This newspaper is published by Harbour Media Group Limited, a company registered in \
            Port Ellis with number 0421337, whose registered office is at 12 Quay Street, and all of its \
            content is protected by copyright law in every country where it is read.";
        let stories = [
            "The harbour bridge reopened on Monday after eight months of repairs, and commuters returned at once to the crossing.",
            "The library opened its archive of old sea charts to visitors, and schoolchildren queued to see the serpent map.",
            "The fishing fleet agreed to cut its cod catch by a fifth this year after scientists warned that stocks were falling.",
            "A school robotics club won the national championship with a machine that sorts recycled bottles by colour.",
        ];
        let mut site = SiteState::default();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for (n, story) in stories.iter().enumerate() {
            let html = format!(
                "<html><head><title>Story {n}</title></head><body><nav><a href='/'>Home</a><a href='/w'>World</a></nav>\
                 <div class='story'><p>{story} {story}</p><p>{story}</p></div><div class='legal'><p>{legal}</p></div>\
                 <footer><a href='/about'>About</a></footer></body></html>"
            );
            let mut c = page(&html);
            c.url = format!("http://gazette.test/{n}");
            let density = extract(&c, Extractor::Density).text;
            let template = extract_with(&c, Extractor::Template, Some(&mut site)).text;
            let score = |text: &str| {
                let (want, got) = (gleaner_text::words(story), gleaner_text::words(text));
                let hit = got.iter().filter(|w| want.contains(w)).count() as f64;
                let (p, r) = (
                    hit / got.len().max(1) as f64,
                    (hit / 3.0 / want.len() as f64).min(1.0),
                );
                if p + r == 0.0 {
                    0.0
                } else {
                    2.0 * p * r / (p + r)
                }
            };
            assert!(
                density.contains("Harbour Media Group"),
                "density keeps the legal paragraph"
            );
            assert!(template.contains(story), "page {n}: {template}");
            before.push(score(&density));
            after.push(score(&template));
            if n >= 2 {
                assert!(
                    !template.contains("Harbour Media Group"),
                    "page {n} still has the template: {template}"
                );
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        eprintln!(
            "template test: token F1 density {:.3} -> template {:.3} (pages 3+: {:.3} -> {:.3})",
            mean(&before),
            mean(&after),
            mean(&before[2..]),
            mean(&after[2..])
        );
        assert!(mean(&after[2..]) > mean(&before[2..]) + 0.1);
    }
}
