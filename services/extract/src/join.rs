//! The chosen blocks as the article's plain text: where a line ends,
//! where a paragraph does, and which blocks share a line.

use crate::features::pre_of;
use gleaner_core::messages::Block;

/// Joins blocks as plain text: one block per line, a blank line between
/// paragraphs; list items on consecutive lines, and so the lines of one
/// `<pre>` (code that a highlighter writes a line per element) and the
/// lines a single `<br>` parts within one element; a table a row per
/// line, its cells parted by tabs. A block of joiners alone (an
/// empty paragraph as Webflow writes it, which the clean stage keeps for
/// the page's shape) shows nothing and is left out.
pub fn join_blocks(blocks: &[Block], chosen: &[usize]) -> String {
    let mut out = String::new();
    let (mut prev_item, mut prev_pre, mut prev_cell, mut prev) = (false, None, None, None);
    for &i in chosen {
        let b = &blocks[i];
        if b.text.chars().all(|c| matches!(c, '\u{200c}' | '\u{200d}')) {
            continue;
        }
        let item = matches!(b.tag.as_str(), "li" | "dd" | "dt" | "td" | "th");
        let pre = pre_of(b);
        let cell = table_cell(b);
        if let Some(p) = prev {
            let same_pre = pre.is_some() && pre == prev_pre;
            let next_line = b.line_break && p + 1 == i;
            out.push_str(match between_cells(prev_cell, cell, b.line_break) {
                Some(Cells::SameRow) => "\t",
                Some(Cells::NextRow) => "\n",
                None if (item && prev_item) || same_pre || next_line => "\n",
                None => "\n\n",
            });
        }
        out.push_str(&b.text);
        (prev_item, prev_pre, prev_cell, prev) = (item, pre, cell, Some(i));
    }
    out
}

/// Where a block that begins a table cell lies from the one before it,
/// which ended another cell of the table.
enum Cells {
    SameRow,
    NextRow,
}

/// Whether a block in `cell` begins a table cell after the block before
/// it ended `prev` (each as [`table_cell`] reads it), in the same row
/// (the cells' parent is one) or in another row of the same table (the
/// rows' parent is one). A table read a cell per line ("Film", "Year",
/// "Description", "Repeat Performance", "1947", ...) no longer says
/// which cells go together: a row is a line, its cells parted by tabs,
/// whitespace to every word count (a `|` would be a word to a tokenizer
/// that splits at spaces). A block after a `<br>` stays on its own line.
fn between_cells(
    prev: Option<[u32; 3]>,
    cell: Option<[u32; 3]>,
    line_break: bool,
) -> Option<Cells> {
    let ([table, row, cell], [b_table, b_row, b_cell]) = (prev?, cell?);
    match (line_break, row == b_row, cell == b_cell) {
        (true, ..) => None,
        (false, true, false) => Some(Cells::SameRow),
        (false, false, _) if table == b_table => Some(Cells::NextRow),
        _ => None,
    }
}

/// Longest block that shares a line, or a table, with the cells beside
/// it: a cell's paragraph of prose is no data table's (a page laid out in
/// a table, the article in one cell), and keeps its own lines.
const MAX_CELL_CHARS: u32 = 400;

/// The element numbers of the rows' parent (a `<tbody>`, or the table),
/// the row and the innermost table cell (`<td>`, `<th>`) a block of at
/// most [`MAX_CELL_CHARS`] is in, read off its path's labels (tag, `#id`,
/// `.class`es), one per element of `ancestors`; `None` outside a table,
/// for a longer block, or where a class name's `/` splits a label in two.
fn table_cell(b: &Block) -> Option<[u32; 3]> {
    if b.text_len > MAX_CELL_CHARS {
        return None;
    }
    let (mut labels, mut cell_at) = (0, None);
    for (k, label) in b.path.split('/').enumerate() {
        labels += 1;
        if matches!(label.split(['#', '.']).next(), Some("td" | "th")) {
            cell_at = Some(k);
        }
    }
    let a = &b.ancestors;
    let k = cell_at.filter(|_| labels == a.len())?;
    Some([a[k.checked_sub(2)?], a[k - 1], a[k]])
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
             <tr><td><p>The Time Travelers</p></td><td><p><b>1964</b></p></td><td>Scientists test a time-viewing device that becomes a portal.</td></tr></table>\
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

    /// A page laid out in a table keeps its paragraphs apart, though
    /// they sit in two cells of one row.
    #[test]
    fn a_layout_tables_cells_of_prose_stay_paragraphs() {
        let para = "The harbour bridge reopened to traffic on Monday after eight months of repairs to its deck, and the council said that the cost had run to forty million, twice the first estimate, because the steel of the old span was found to be worse than the survey of two years ago had shown. Engineers replaced four hundred bolts, repainted the whole structure and laid a new surface on the road, while the ferries ran every ten minutes to carry the commuters across the water.";
        let html = format!(
            "<html><body><table><tr><td><h1>Bridge</h1><p>{para}</p></td>\
             <td><p>{para} Commuters welcomed the news.</p></td></tr></table></body></html>"
        );
        let a = crate::extract(&crate::meta::tests::page_of(&html), Extractor::Auto);
        assert!(a.text.contains("the water.\n\nThe harbour"), "{:?}", a.text);
    }
}
