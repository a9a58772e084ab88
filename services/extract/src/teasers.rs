//! Teaser cards after an article: a stream of cards, each a linked
//! headline with a line or two of its own (a standfirst, a source, a
//! byline), that sends the reader to other articles ("more stories", a
//! news feed under the post). No class name need announce them and their
//! standfirsts read like the article's paragraphs, so they are told by
//! their structure, in any language: three or more elements side by side in
//! one container, each holding a headline that is a link and text that is
//! not. A list whose items are bare links is left to the link-density
//! signals, and an article's own paragraphs with a link each are no cards.

use gleaner_core::messages::Block;

/// Cards it takes to make a stream.
const CARDS: usize = 3;

/// Sizes are in words, a CJK character counting as half of one (as every
/// density measure of the extractor counts them:
/// `features::CJK_WORDS_PER_CHAR`).
///
/// Words of the article that must come before the stream: the cards
/// follow an article; a page that starts with them is a listing.
const ARTICLE_BEFORE: f64 = 80.0;

/// Words of chosen text the stream's container may hold before its
/// first card (more, and the container holds the article too), and that
/// may follow the stream outside it (more, and the stream sits inside
/// the page's content, a listing's sections, not after it).
const CONTAINER_BEFORE: f64 = 35.0;

/// Most words a card's own text (not its headline) may have: a
/// standfirst and a byline, not a section of a listicle.
const CARD_TEXT: f64 = 100.0;

/// A headline that is a link: a heading of a few words (`words`), nearly
/// all of it link text (a table's linked first column is no headline).
fn linked_headline(b: &Block, words: f64) -> bool {
    matches!(b.tag.as_str(), "h2" | "h3" | "h4" | "h5" | "h6")
        && (3.0..=40.0).contains(&words)
        && b.link_text_len * 10 >= b.text_len * 9
}

/// The depth of the deepest element two blocks share (the length of their
/// common ancestry), when neither block's element holds the other's.
fn shared_depth(a: &Block, b: &Block) -> Option<usize> {
    let depth = crate::tree::shared_ancestry(a, b);
    (depth > 0 && depth < a.ancestors.len() && depth < b.ancestors.len()).then_some(depth)
}

/// The most words one element holds in paragraphs of its own (three or
/// more chosen blocks that are its children, mostly not link text) before
/// block `first`: an article's body, which a listing made of cards has not.
fn body_before(blocks: &[Block], words: &[f64], chosen: &[usize], first: usize) -> f64 {
    // By parent (its ancestry): words and blocks. A map, so that a page of
    // thousands of blocks under as many parents stays linear.
    let mut held: rustc_hash::FxHashMap<&[u32], (f64, usize)> = Default::default();
    for &i in chosen.iter().take_while(|&&i| i < first) {
        let b = &blocks[i];
        let Some((_, parent)) = b.ancestors.split_last() else {
            continue;
        };
        if b.link_text_len * 2 > b.text_len {
            continue;
        }
        let h = held.entry(parent).or_default();
        h.0 += words[i];
        h.1 += 1;
    }
    held.values()
        .filter(|h| h.1 >= 3)
        .map(|h| h.0)
        .fold(0.0, f64::max)
}

/// The words of a block that are not link text (in proportion).
fn unlinked_words(b: &Block, words: f64) -> f64 {
    let linked = f64::from(b.link_text_len.min(b.text_len)) / f64::from(b.text_len.max(1));
    words * (1.0 - linked)
}

/// `chosen` without a stream of teaser cards that follows the article, on
/// a page `declared` an article (a listing's cards are its content);
/// `words[i]` is block `i`'s.
pub fn without_teasers(
    blocks: &[Block],
    words: &[f64],
    mut chosen: Vec<usize>,
    declared: bool,
) -> Vec<usize> {
    if !declared {
        return chosen;
    }
    let headline = |i: usize| linked_headline(&blocks[i], words[i]);
    // The cards are read off every block: the classifier may have passed
    // over some of a stream's headlines and kept their standfirsts.
    let heads: Vec<usize> = (0..blocks.len()).filter(|&i| headline(i)).collect();
    let under = |i: usize, depth: usize, id: u32| blocks[i].ancestors.get(depth) == Some(&id);
    // Runs of headlines whose neighbours meet in one container: (the
    // container's depth and element, the run's headlines).
    let mut runs: Vec<(usize, u32, Vec<usize>)> = Vec::new();
    for pair in heads.windows(2) {
        let Some(depth) = shared_depth(&blocks[pair[0]], &blocks[pair[1]]) else {
            continue;
        };
        let container = blocks[pair[0]].ancestors[depth - 1];
        match runs.last_mut() {
            Some(run)
                if run.0 == depth - 1 && run.1 == container && run.2.last() == Some(&pair[0]) =>
            {
                run.2.push(pair[1])
            }
            _ => runs.push((depth - 1, container, pair.to_vec())),
        }
    }
    // From the page's end: a feed must end the text, so the last one is
    // looked at first, one before it may end the text once it is gone, and
    // the first with too much text after it ends the search (each look
    // costs a pass over the page).
    for (depth, container, run) in runs.into_iter().rev() {
        // The container's children holding a headline, each once, as the
        // blocks each holds (an element's blocks are consecutive).
        let mut items: Vec<std::ops::Range<usize>> = Vec::new();
        for &h in &run {
            let item = blocks[h].ancestors[depth + 1];
            if items.last().is_some_and(|r| r.contains(&h)) {
                continue;
            }
            let start = (0..h)
                .rev()
                .take_while(|&i| under(i, depth + 1, item))
                .last()
                .unwrap_or(h);
            let end = (h..blocks.len())
                .take_while(|&i| under(i, depth + 1, item))
                .last()
                .unwrap_or(h);
            items.push(start..end + 1);
        }
        let cards = items
            .iter()
            .filter(|item| {
                let own: f64 = (item.start..item.end)
                    .filter(|&i| !headline(i))
                    .map(|i| unlinked_words(&blocks[i], words[i]))
                    .sum();
                own > 0.0 && own <= CARD_TEXT
            })
            .count();
        // Headlines that are questions, answered below each: a FAQ's
        // accordion (its titles are links that open the answers).
        let questions = run
            .iter()
            .filter(|&&h| blocks[h].text.trim_end().ends_with(['?', '？', ';', '؟']))
            .count();
        if cards < CARDS || questions * 2 > run.len() {
            continue;
        }
        let first = items[0].start;
        // What follows the stream outside its container (the stream ends
        // the page's text), and what the container holds before it.
        let after: f64 = chosen
            .iter()
            .filter(|&&i| i > first && !under(i, depth, container))
            .map(|&i| words[i])
            .sum();
        if after > CONTAINER_BEFORE {
            break;
        }
        let inside_before: f64 = chosen
            .iter()
            .take_while(|&&i| i < first)
            .filter(|&&i| under(i, depth, container))
            .map(|&i| words[i])
            .sum();
        if inside_before <= CONTAINER_BEFORE
            && body_before(blocks, words, &chosen, first) >= ARTICLE_BEFORE
        {
            chosen.retain(|&i| i < first || !under(i, depth, container));
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `words` words under `ancestors` (its own element last),
    /// all of it a link when `linked`.
    fn block(tag: &str, ancestors: &[u32], words: usize, linked: bool) -> Block {
        let text = vec!["word"; words].join(" ");
        Block {
            text_len: text.len() as u32,
            link_text_len: if linked { text.len() as u32 } else { 0 },
            text,
            tag: tag.to_string(),
            ancestors: ancestors.to_vec(),
            ..Default::default()
        }
    }

    /// An article's body (four paragraphs of `body_words` each) and then
    /// a feed of three cards, each a linked `<h3>` and a standfirst.
    fn page(body_words: usize) -> Vec<Block> {
        let mut page: Vec<Block> = (0..4)
            .map(|k| block("p", &[0, 1, 2, 10 + k], body_words, false))
            .collect();
        for card in 0..3 {
            let item = 60 + 10 * card;
            page.push(block("h3", &[0, 1, 50, item, item + 1], 7, true));
            page.push(block("p", &[0, 1, 50, item, item + 2], 20, false));
        }
        page
    }

    fn kept(page: &[Block], declared: bool) -> Vec<usize> {
        let words: Vec<f64> = page
            .iter()
            .map(|b| b.text.split(' ').count() as f64)
            .collect();
        without_teasers(page, &words, (0..page.len()).collect(), declared)
    }

    #[test]
    fn a_feed_of_cards_after_an_article_goes() {
        assert_eq!(kept(&page(30), true), vec![0, 1, 2, 3]);
    }

    #[test]
    fn two_feeds_that_end_the_page_both_go() {
        let mut page = page(30);
        for card in 0..3 {
            let item = 200 + 10 * card;
            page.push(block("h3", &[0, 1, 51, item, item + 1], 6, true));
            page.push(block("p", &[0, 1, 51, item, item + 2], 12, false));
        }
        assert_eq!(kept(&page, true), vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_page_not_declared_an_article_keeps_its_cards() {
        assert_eq!(kept(&page(30), false).len(), 10);
    }

    #[test]
    fn cards_without_an_article_before_them_are_a_listing() {
        // An intro of four short paragraphs (40 words) is no article.
        assert_eq!(kept(&page(10), true).len(), 10);
    }

    #[test]
    fn cards_inside_the_article_are_not_a_feed_after_it() {
        let mut page = page(30);
        page.push(block("p", &[0, 1, 3, 90], 60, false));
        assert_eq!(kept(&page, true).len(), 11);
    }

    #[test]
    fn a_faq_of_linked_questions_stays() {
        let mut page = page(30);
        for i in [4, 6, 8] {
            page[i].text.push('?');
            page[i].text_len += 1;
            page[i].link_text_len += 1;
        }
        assert_eq!(kept(&page, true).len(), 10);
    }

    #[test]
    fn cards_with_long_text_are_a_listicles_sections() {
        let mut page = page(30);
        for i in [5, 7, 9] {
            page[i] = block("p", &page[i].ancestors.clone(), 150, false);
        }
        assert_eq!(kept(&page, true).len(), 10);
    }

    #[test]
    fn a_tables_linked_first_column_is_no_headline() {
        let mut page = page(30);
        for i in [4, 6, 8] {
            page[i].tag = "th".into();
        }
        assert_eq!(kept(&page, true).len(), 10);
    }
}
