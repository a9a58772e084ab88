//! The chosen blocks as the article's plain text: where a line ends,
//! where a paragraph does, and which blocks share a line.

use crate::features::pre_of;
use gleaner_core::messages::Block;

/// Joins blocks as plain text: one block per line, a blank line between
/// paragraphs; list items on consecutive lines, and so the lines of one
/// `<pre>` (code that a highlighter writes a line per element) and the
/// lines a single `<br>` parts within one element; a table's cells one
/// row per line, each cell after a tab. A block of joiners alone (an
/// empty paragraph as Webflow writes it, which the clean stage keeps for
/// the page's shape) shows nothing and is left out.
pub fn join_blocks(blocks: &[Block], chosen: &[usize]) -> String {
    let mut out = String::new();
    let (mut prev_item, mut prev_pre, mut prev) = (false, None, None);
    for &i in chosen {
        let b = &blocks[i];
        if b.text.chars().all(|c| matches!(c, '\u{200c}' | '\u{200d}')) {
            continue;
        }
        let item = matches!(b.tag.as_str(), "li" | "dd" | "dt" | "td" | "th");
        let pre = pre_of(b);
        if let Some(p) = prev {
            let same_pre = pre.is_some() && pre == prev_pre;
            let next_line = b.line_break && p + 1 == i;
            out.push_str(if next_cell_of_a_row(&blocks[p], b) {
                "\t"
            } else if (item && prev_item) || same_pre || next_line {
                "\n"
            } else {
                "\n\n"
            });
        }
        out.push_str(&b.text);
        (prev_item, prev_pre, prev) = (item, pre, Some(i));
    }
    out
}

/// Whether `b` is a table cell after `prev`, another cell of the same
/// row: their elements differ and their parents (the row) are one. A
/// table read a cell per line ("Film", "Year", "Description", "Repeat
/// Performance", "1947", ...) no longer says which cells go together; a
/// tab keeps them apart as whitespace, which every word count reads as
/// a space (a `|` would be a word to a tokenizer that splits at spaces).
fn next_cell_of_a_row(prev: &Block, b: &Block) -> bool {
    let cell = |b: &Block| matches!(b.tag.as_str(), "td" | "th");
    let (a, pa) = (&b.ancestors, &prev.ancestors);
    cell(prev)
        && cell(b)
        && !b.line_break
        && a.len() >= 2
        && a.len() == pa.len()
        && a[..a.len() - 1] == pa[..pa.len() - 1]
        && a.last() != pa.last()
}

#[cfg(test)]
mod tests {
    use crate::extractor::Extractor;

    /// A data table reads a row per line, its cells parted by tabs; a
    /// list's items stay a line each.
    #[test]
    fn a_table_reads_a_row_per_line() {
        let long = "The harbour bridge reopened to traffic on Monday after eight months of repairs to its deck.";
        let html = format!(
            "<html><body><article><h1>Bridge</h1><p>{long}</p>\
             <table><tr><th>Film</th><th>Year</th><th>Description</th></tr>\
             <tr><td><a href=\"/r\">Repeat Performance</a></td><td>1947</td><td>A woman who shot her husband wishes she could live the year again.</td></tr>\
             <tr><td>The Time Travelers</td><td>1964</td><td>Scientists test a time-viewing device that becomes a portal.</td></tr></table>\
             <p>{long} Commuters welcomed the news.</p><p>The new timetable lists the stops:</p><ul><li>The ferry terminal on the north shore of the harbour.</li><li>The old market hall beside the town square.</li></ul></article></body></html>"
        );
        let a = crate::extract(&crate::meta::tests::page_of(&html), Extractor::Auto);
        assert!(
            a.text.contains(
                "Film\tYear\tDescription\nRepeat Performance\t1947\tA woman who shot her husband wishes she could live the year again.\nThe Time Travelers\t1964\t"
            ),
            "{:?}",
            a.text
        );
        assert!(
            a.text
                .contains("north shore of the harbour.\nThe old market hall"),
            "{:?}",
            a.text
        );
    }
}
