//! The state of one cleaning pass: the open elements and their path, and
//! the block being filled, with its features.

use crate::attrs::{push_label, Attrs};
use crate::entities::{collapse, decode_entities, preformatted};
use crate::microdata::{LinkAuthor, MicrodataAuthor};
use crate::tags::*;
use gleaner_core::messages::{Block, PageMeta};

/// Limits that keep hostile pages bounded in time and memory.
pub(crate) const MAX_DEPTH: usize = 256;
pub(crate) const MAX_BLOCK_BYTES: usize = 1 << 20;
pub(crate) const MAX_BLOCKS: usize = 50_000;
pub(crate) const MAX_NOSCRIPT_BYTES: usize = 4 << 20;
pub(crate) const MAX_PARSER_MEMORY: usize = 64 << 20;

#[derive(Debug)]
pub(crate) struct Open {
    pub(crate) serial: u64,
    pub(crate) tag: String,
    /// Length of `State::path` before this element's label was added.
    pub(crate) path_len: usize,
    pub(crate) dropped: bool,
    pub(crate) link: bool,
    pub(crate) hidden: bool,
    pub(crate) chrome_role: bool,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) stack: Vec<Open>,
    /// The labels of `stack` joined by `/`, kept as elements open and close.
    pub(crate) path: String,
    pub(crate) serial: u64,
    pub(crate) dropped_depth: usize,
    /// Inside `<noscript>` (and nothing else dropped): its raw markup is kept
    /// aside, for pages that put their content there for crawlers.
    pub(crate) noscript_depth: usize,
    pub(crate) noscript_raw: String,
    pub(crate) link_depth: usize,
    pub(crate) hidden_depth: usize,
    pub(crate) chrome_role_depth: usize,
    pub(crate) in_title: bool,
    pub(crate) title_raw: String,
    pub(crate) ld_json: Vec<String>,
    pub(crate) in_ld_json: bool,
    // The block being filled.
    pub(crate) raw: String,
    pub(crate) link_raw: String,
    /// Bytes of `raw` that came from hidden elements.
    pub(crate) hidden_raw_bytes: usize,
    /// Whether any of the block's text was inside a chrome role.
    pub(crate) chrome_role: bool,
    pub(crate) link_count: u32,
    pub(crate) image_count: u32,
    /// Whether the block holds code (`<code>`, `<kbd>`, `<samp>`), whose
    /// text may be a template's syntax shown as such.
    pub(crate) has_code: bool,
    pub(crate) markup_bytes: u32,
    /// `<br>`s since the last block was recorded, and whether any other
    /// block boundary (an element's start or end) came since: the next
    /// block is on the next line of the last one when a single `<br>`
    /// and nothing else parted them (`Block::line_break`).
    pub(crate) breaks: u32,
    pub(crate) boundary: bool,
    pub(crate) blocks: Vec<Block>,
    pub(crate) meta: PageMeta,
    /// The first `<time datetime>` values (at most
    /// [`crate::local_date::MAX_TIMES`]), in page order.
    pub(crate) time_datetimes: Vec<String>,
    /// Whether the page's first Reddit post element was read (its
    /// poster and time are the page's: `meta::read_meta`).
    pub(crate) reddit_post_read: bool,
    pub(crate) microdata: MicrodataAuthor,
    pub(crate) linked_author: LinkAuthor,
    /// A forum thread's first poster, read until a microdata author is
    /// found (whichever names a person first is the page's).
    pub(crate) poster: LinkAuthor,
    /// The `N` of the `twitter:labelN` card that reads "Written by".
    pub(crate) twitter_author_slot: Option<String>,
    /// The paper's authors, one `citation_author` meta tag each.
    pub(crate) citation_authors: Vec<String>,
    /// The microdata items on the page whose type is a page type
    /// (`itemtype="https://schema.org/QAPage"`): the first one's type and
    /// how many there are.
    pub(crate) microdata_type: Option<&'static str>,
    pub(crate) microdata_typed_items: usize,
}

/// Whether a text is only template expressions a script was to fill in
/// (`{{ article.title }}`, Angular's, Vue's and Handlebars' syntax): a
/// page served before its script ran shows them, and they are no text.
fn only_template_expressions(text: &str) -> bool {
    let mut rest = text.trim();
    if !rest.starts_with("{{") {
        return false;
    }
    while let Some(after) = rest.strip_prefix("{{") {
        let Some(end) = after.find("}}") else {
            return false;
        };
        rest = after[end + 2..].trim_start_matches(|c: char| !c.is_alphanumeric() && c != '{');
    }
    rest.is_empty()
}

impl State {
    /// Whether an open element is a `<figure>` or its caption.
    pub(crate) fn in_a_figure(&self) -> bool {
        self.stack
            .iter()
            .any(|o| matches!(o.tag.as_str(), "figure" | "figcaption"))
    }

    /// Whether an open element is a `<pre>`, whose text keeps its lines.
    fn in_a_pre(&self) -> bool {
        self.stack.iter().any(|o| o.tag == "pre")
    }

    pub(crate) fn path(&self) -> String {
        self.path.clone()
    }

    pub(crate) fn block_tag(&self) -> String {
        self.stack
            .iter()
            .rev()
            .find(|o| is_block(&o.tag))
            .map(|o| o.tag.clone())
            .unwrap_or_default()
    }

    /// Ends the current block: decodes and collapses its text and records it
    /// with its features, if it has any text.
    pub(crate) fn flush(&mut self) {
        // Most flushes see only the whitespace between two tags.
        if self.raw.bytes().all(|b| b.is_ascii_whitespace()) {
            self.raw.clear();
            self.link_raw.clear();
            self.hidden_raw_bytes = 0;
            self.chrome_role = false;
            self.link_count = 0;
            self.image_count = 0;
            self.has_code = false;
            self.markup_bytes = 0;
            return;
        }
        let decoded = decode_entities(&self.raw);
        let text = collapse(&decoded);
        // The classifiers' features count the collapsed text, whatever
        // the block shows.
        let text_len = text.chars().count() as u32;
        let text = match self.in_a_pre() {
            true => preformatted(&decoded),
            false => text,
        };
        drop(decoded);
        // The hidden share of the raw text, in characters of the clean one.
        let hidden_share = self.hidden_raw_bytes as f64 / self.raw.len().max(1) as f64;
        self.raw.clear();
        let tag = self.block_tag();
        // Code shows a template's syntax as such (a framework's docs).
        let unrendered = !self.has_code && tag != "pre" && only_template_expressions(&text);
        if !text.is_empty() && !unrendered && self.blocks.len() < MAX_BLOCKS {
            let link_text = collapse(&decode_entities(&self.link_raw));
            self.blocks.push(Block {
                hidden_len: (f64::from(text_len) * hidden_share).round() as u32,
                chrome_role: self.chrome_role,
                line_break: self.breaks == 1 && !self.boundary && !self.blocks.is_empty(),
                text_len,
                link_text_len: link_text.chars().count() as u32,
                text,
                path: self.path(),
                ancestors: self.stack.iter().map(|o| o.serial as u32).collect(),
                tag,
                link_count: self.link_count,
                image_count: self.image_count,
                markup_bytes: self.markup_bytes,
            });
            (self.breaks, self.boundary) = (0, false);
        }
        self.link_raw.clear();
        self.hidden_raw_bytes = 0;
        self.chrome_role = false;
        self.link_count = 0;
        self.image_count = 0;
        self.has_code = false;
        self.markup_bytes = 0;
    }

    pub(crate) fn push(&mut self, tag: String, a: &Attrs) -> u64 {
        let (id, class) = (a.id.as_deref(), a.class.as_deref());
        self.serial += 1;
        // A hidden formula is the copy of one shown as an image (for screen
        // readers, as on Wikipedia), whose alt text is kept.
        let dropped = is_dropped(&tag)
            || a.edit_link
            || (tag == "math" && (a.hidden || self.hidden_depth > 0));
        let link = tag == "a";
        if tag == "a" {
            // A link inside a link is not HTML: a browser ends the open one
            // (the adoption agency), so its text is no longer link text.
            // Seen after `<a name="top"/>`, whose `/>` does not close it.
            self.end_open_links();
        }
        self.dropped_depth += usize::from(dropped);
        self.noscript_depth += usize::from(tag == "noscript");
        self.link_depth += usize::from(link);
        self.hidden_depth += usize::from(a.hidden);
        self.chrome_role_depth += usize::from(a.chrome_role);
        let path_len = self.path.len();
        if !self.stack.is_empty() {
            self.path.push('/');
        }
        push_label(&mut self.path, &tag, id, class);
        self.stack.push(Open {
            serial: self.serial,
            tag,
            path_len,
            dropped,
            link,
            hidden: a.hidden,
            chrome_role: a.chrome_role,
        });
        self.serial
    }

    /// Ends the links left open: their elements stay open, their text
    /// from here on is not link text.
    fn end_open_links(&mut self) {
        for o in self.stack.iter_mut().filter(|o| o.link) {
            o.link = false;
            self.link_depth -= 1;
        }
    }

    /// Pops the stack down to and including the element with `serial`;
    /// elements left open inside it (missing end tags) close with it.
    pub(crate) fn pop_to(&mut self, serial: u64) {
        if let Some(pos) = self.stack.iter().rposition(|o| o.serial == serial) {
            self.path.truncate(self.stack[pos].path_len);
            for o in self.stack.drain(pos..) {
                self.dropped_depth -= usize::from(o.dropped);
                self.noscript_depth -= usize::from(o.tag == "noscript");
                self.link_depth -= usize::from(o.link);
                self.hidden_depth -= usize::from(o.hidden);
                self.chrome_role_depth -= usize::from(o.chrome_role);
                self.microdata.end(o.serial);
                self.linked_author.end(o.serial);
                self.poster.end(o.serial);
            }
        }
    }

    /// HTML's implied end tags for the common cases (`<p>` closed by a block,
    /// `<li>` by the next `<li>`, table cells and rows, a ruby reading by
    /// the next, and a `<head>` left
    /// open by `<body>`, which would otherwise drop the whole page).
    pub(crate) fn close_implied(&mut self, tag: &str) {
        if tag == "body" {
            if let Some(head) = self.stack.iter().rposition(|o| o.tag == "head") {
                let serial = self.stack[head].serial;
                self.pop_to(serial);
            }
        }
        let closes = |open: &str| -> bool {
            match open {
                "p" => closes_p(tag),
                "li" => tag == "li",
                "dt" | "dd" => tag == "dt" || tag == "dd",
                "td" | "th" => matches!(tag, "td" | "th" | "tr"),
                "tr" => tag == "tr",
                "option" => tag == "option",
                "rt" | "rp" => matches!(tag, "rt" | "rp"),
                _ => false,
            }
        };
        while let Some(top) = self.stack.last() {
            if closes(&top.tag) {
                let s = top.serial;
                self.pop_to(s);
            } else {
                break;
            }
        }
    }
}

/// The paragraphs of a JSON-LD `articleBody` as blocks of an `<article>`
/// (numbered after the page's own elements, from `after`). Its text is
/// plain: a line break ends a paragraph.
pub(crate) fn body_blocks(body: &str, after: u64) -> Vec<Block> {
    let (html, body_el, article) = (after + 1, after + 2, after + 3);
    body.lines()
        .map(collapse)
        .filter(|p| !p.is_empty())
        .take(MAX_BLOCKS)
        .enumerate()
        .map(|(i, text)| Block {
            text_len: text.chars().count() as u32,
            text,
            path: "html/body/article.articleBody/p".into(),
            ancestors: vec![
                html as u32,
                body_el as u32,
                article as u32,
                (after + 4 + i as u64) as u32,
            ],
            tag: "p".into(),
            ..Block::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::only_template_expressions;

    /// A page served before its script filled it in shows its template's
    /// expressions: no text; code showing one (a framework's docs) stays.
    #[test]
    fn unrendered_template_expressions_are_no_text() {
        assert!(only_template_expressions(
            r#"{{ctl.status === "published" ? "Contenu publié" : "Inconnu"}}"#
        ));
        assert!(only_template_expressions("{{ a.title }} · {{ a.date }}"));
        assert!(!only_template_expressions("Hello {{ name }}"));
        assert!(!only_template_expressions("{{ name }} wrote this"));
        assert!(!only_template_expressions("{{ unclosed"));
        let html = r#"<html><body><p>{{ctl.status === "draft" ? "Brouillon" : "Inconnu"}}</p>
            <p>The harbour bridge reopened on Monday.</p><pre>{{ user.name }}</pre>
            <dl><dt><code>{{ field.errors }}</code></dt><dd><p>Its errors.</p></dd></dl></body></html>"#;
        let (_, _, blocks) = crate::clean_html(html).unwrap();
        let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "The harbour bridge reopened on Monday.",
                "{{ user.name }}",
                "{{ field.errors }}",
                "Its errors."
            ]
        );
    }

    /// A code block keeps its lines and indentation (highlighted spans
    /// and all); its length, which the classifiers see, is that of the
    /// collapsed text, as for every block.
    #[test]
    fn code_blocks_keep_their_lines() {
        let html = "<html><body><p>Run   it\n  so:</p><pre><code>\nfn main() {\n    <span class=k>let</span> x = 1;\n}\n</code></pre></body></html>";
        let (_, _, blocks) = crate::clean_html(html).unwrap();
        let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Run it so:", "fn main() {\n    let x = 1;\n}"]);
        assert_eq!(blocks[1].text_len, "fn main() { let x = 1; }".len() as u32);
    }
}
