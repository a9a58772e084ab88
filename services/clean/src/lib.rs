//! The clean stage: streams a page's HTML through lol_html, drops what is
//! never content (script, style, noscript, template, svg, comments, ...), and
//! emits the title, page metadata and the ordered text blocks with their
//! features (tag path, text length, link text, links, images, markup bytes,
//! hidden text, chrome ARIA roles).

mod entities;

use async_trait::async_trait;
use gleaner_core::messages::{Block, Cleaned, Page, PageMeta};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::Topic;
use lol_html::{doc_text, element, HtmlRewriter, MemorySettings, Settings};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

pub use entities::decode_entities;

/// Elements whose text is never content.
fn is_dropped(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "svg"
            | "math"
            | "iframe"
            | "object"
            | "canvas"
            | "select"
            | "textarea"
            | "button"
            | "head"
    )
}

/// Elements that start a new block of text.
fn is_block(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "br"
            | "option"
    )
}

/// Elements whose start implicitly closes an open `<p>`.
fn closes_p(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "div"
            | "dl"
            | "fieldset"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hr"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "ul"
            | "figure"
    )
}

/// Limits that keep hostile pages bounded in time and memory.
const MAX_DEPTH: usize = 256;
const MAX_BLOCK_BYTES: usize = 1 << 20;
const MAX_BLOCKS: usize = 50_000;
const MAX_NOSCRIPT_BYTES: usize = 4 << 20;
const MAX_PARSER_MEMORY: usize = 64 << 20;

#[derive(Debug)]
struct Open {
    serial: u64,
    tag: String,
    /// Length of `State::path` before this element's label was added.
    path_len: usize,
    dropped: bool,
    link: bool,
    hidden: bool,
    chrome_role: bool,
}

#[derive(Default)]
struct State {
    stack: Vec<Open>,
    /// The labels of `stack` joined by `/`, kept as elements open and close.
    path: String,
    serial: u64,
    dropped_depth: usize,
    /// Inside `<noscript>` (and nothing else dropped): its raw markup is kept
    /// aside, for pages that put their content there for crawlers.
    noscript_depth: usize,
    noscript_raw: String,
    link_depth: usize,
    hidden_depth: usize,
    chrome_role_depth: usize,
    in_title: bool,
    title_raw: String,
    ld_json: Vec<String>,
    in_ld_json: bool,
    // The block being filled.
    raw: String,
    link_raw: String,
    /// Bytes of `raw` that came from hidden elements.
    hidden_raw_bytes: usize,
    /// Whether any of the block's text was inside a chrome role.
    chrome_role: bool,
    link_count: u32,
    image_count: u32,
    markup_bytes: u32,
    blocks: Vec<Block>,
    meta: PageMeta,
    time_datetime: Option<String>,
}

impl State {
    fn path(&self) -> String {
        self.path.clone()
    }

    fn block_tag(&self) -> String {
        self.stack
            .iter()
            .rev()
            .find(|o| is_block(&o.tag))
            .map(|o| o.tag.clone())
            .unwrap_or_default()
    }

    /// Ends the current block: decodes and collapses its text and records it
    /// with its features, if it has any text.
    fn flush(&mut self) {
        // Most flushes see only the whitespace between two tags.
        if self.raw.bytes().all(|b| b.is_ascii_whitespace()) {
            self.raw.clear();
            self.link_raw.clear();
            self.hidden_raw_bytes = 0;
            self.chrome_role = false;
            self.link_count = 0;
            self.image_count = 0;
            self.markup_bytes = 0;
            return;
        }
        let text = collapse(&decode_entities(&self.raw));
        // The hidden share of the raw text, in characters of the clean one.
        let hidden_share = self.hidden_raw_bytes as f64 / self.raw.len().max(1) as f64;
        self.raw.clear();
        if !text.is_empty() && self.blocks.len() < MAX_BLOCKS {
            let link_text = collapse(&decode_entities(&self.link_raw));
            let text_len = text.chars().count() as u32;
            self.blocks.push(Block {
                hidden_len: (f64::from(text_len) * hidden_share).round() as u32,
                chrome_role: self.chrome_role,
                text_len,
                link_text_len: link_text.chars().count() as u32,
                text,
                path: self.path(),
                ancestors: self.stack.iter().map(|o| o.serial as u32).collect(),
                tag: self.block_tag(),
                link_count: self.link_count,
                image_count: self.image_count,
                markup_bytes: self.markup_bytes,
            });
        }
        self.link_raw.clear();
        self.hidden_raw_bytes = 0;
        self.chrome_role = false;
        self.link_count = 0;
        self.image_count = 0;
        self.markup_bytes = 0;
    }

    fn push(&mut self, tag: String, a: &Attrs) -> u64 {
        let (id, class) = (a.id.as_deref(), a.class.as_deref());
        self.serial += 1;
        let dropped = is_dropped(&tag);
        let link = tag == "a";
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

    /// Pops the stack down to and including the element with `serial`;
    /// elements left open inside it (missing end tags) close with it.
    fn pop_to(&mut self, serial: u64) {
        if let Some(pos) = self.stack.iter().rposition(|o| o.serial == serial) {
            self.path.truncate(self.stack[pos].path_len);
            for o in self.stack.drain(pos..) {
                self.dropped_depth -= usize::from(o.dropped);
                self.noscript_depth -= usize::from(o.tag == "noscript");
                self.link_depth -= usize::from(o.link);
                self.hidden_depth -= usize::from(o.hidden);
                self.chrome_role_depth -= usize::from(o.chrome_role);
            }
        }
    }

    /// HTML's implied end tags for the common cases (`<p>` closed by a block,
    /// `<li>` by the next `<li>`, table cells and rows, and a `<head>` left
    /// open by `<body>`, which would otherwise drop the whole page).
    fn close_implied(&mut self, tag: &str) {
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

/// Collapses whitespace runs to one space and trims, and drops the
/// invisible characters that split words (soft hyphen, zero-width space,
/// byte-order mark): "Assis\u{ad}tance" is one word.
fn collapse(s: &str) -> String {
    const INVISIBLE: [char; 3] = ['\u{ad}', '\u{200b}', '\u{feff}'];
    // Their UTF-8 forms end in these bytes; most texts have none.
    let may_hide = s.bytes().any(|b| matches!(b, 0xAD | 0x8B | 0xBF));
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if may_hide && w.contains(INVISIBLE) {
            let visible: String = w.chars().filter(|c| !INVISIBLE.contains(c)).collect();
            if visible.is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&visible);
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// What an element's attributes tell clean: its `id` and `class` as
/// written (entities and all, as `get_attribute` gives them), and whether
/// the page hides it or gives it a chrome ARIA role.
#[derive(Default)]
struct Attrs<'a> {
    id: Option<Cow<'a, str>>,
    class: Option<Cow<'a, str>>,
    hidden: bool,
    chrome_role: bool,
}

/// ARIA roles of page chrome: landmarks around the content, and dialogs
/// and menus that float over it.
fn is_chrome_role(role: &str) -> bool {
    role.split_ascii_whitespace().next().is_some_and(|r| {
        [
            "navigation",
            "banner",
            "contentinfo",
            "complementary",
            "search",
            "menu",
            "menubar",
            "dialog",
            "alertdialog",
            "tooltip",
        ]
        .iter()
        .any(|c| r.eq_ignore_ascii_case(c))
    })
}

/// Whether an inline style hides the element.
fn style_hides(style: &str) -> bool {
    // Most styles say neither word: no copy for them.
    let says = |w: &[u8]| {
        style
            .as_bytes()
            .windows(w.len())
            .any(|x| x.eq_ignore_ascii_case(w))
    };
    if !says(b"none") && !says(b"hidden") {
        return false;
    }
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// Whether class names hide the element the way the common CSS frameworks
/// and CMSs name it (`d-none`, `hidden`, `sr-only`, `visually-hidden`,
/// ...), unless a responsive class shows it again on wider screens
/// (`md:block`, `d-lg-flex`).
fn classes_hide(class: &str) -> bool {
    const HIDING: [&str; 10] = [
        "hidden",
        "d-none",
        "hide",
        "is-hidden",
        "invisible",
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "element-invisible",
    ];
    let shown_wider = |c: &str| {
        let display = c
            .rsplit_once([':', '-'])
            .is_some_and(|(_, d)| matches!(d, "block" | "flex" | "inline" | "grid" | "table"));
        display && (c.contains(':') || (c.starts_with("d-") && c.matches('-').count() == 2))
    };
    let mut hides = false;
    for c in class.split_ascii_whitespace() {
        if shown_wider(c) {
            return false;
        }
        hides |= HIDING.iter().any(|h| c.eq_ignore_ascii_case(h));
    }
    hides
}

/// An element's [`Attrs`], with values sliced from the page by the
/// attributes' source locations: one pass over the attributes and no
/// allocation, where each `get_attribute` call lowercases the name and
/// copies the value.
fn attrs_of<'a>(el: &lol_html::html_content::Element, html: &'a str) -> Attrs<'a> {
    let mut out = Attrs::default();
    for a in el.attributes() {
        let located = a
            .name_source_location()
            .zip(a.value_source_location())
            .and_then(|(n, v)| Some((html.get(n.bytes())?, html.get(v.bytes())?)));
        let (name, value) = match located {
            Some((n, v)) => (Cow::Borrowed(n), Cow::Borrowed(v)),
            None => (Cow::Owned(a.name()), Cow::Owned(a.value())),
        };
        if out.id.is_none() && name.eq_ignore_ascii_case("id") {
            out.id = Some(value);
        } else if out.class.is_none() && name.eq_ignore_ascii_case("class") {
            out.hidden |= classes_hide(&value);
            out.class = Some(value);
        } else if name.eq_ignore_ascii_case("hidden") {
            out.hidden = true;
        } else if name.eq_ignore_ascii_case("aria-hidden") {
            out.hidden |= value.trim().eq_ignore_ascii_case("true");
        } else if name.eq_ignore_ascii_case("style") {
            out.hidden |= style_hides(&value);
        } else if name.eq_ignore_ascii_case("role") {
            out.chrome_role = is_chrome_role(&value);
        }
    }
    out
}

/// Appends an element's label in a tag path, `tag#id.class1.class2.class3`, with
/// characters that would break the path (`/`, `#`, `.`) left out of names.
fn push_label(out: &mut String, tag: &str, id: Option<&str>, class: Option<&str>) {
    let push_clean = |l: &mut String, s: &str| {
        // Most names are short and clean: copied whole.
        if s.len() <= 40 && !s.contains(['/', '#', '.']) {
            l.push_str(s);
        } else {
            l.extend(s.chars().filter(|c| !matches!(c, '/' | '#' | '.')).take(40));
        }
    };
    out.push_str(tag);
    if let Some(id) = id.and_then(|s| s.split_whitespace().next()) {
        out.push('#');
        push_clean(out, id);
    }
    for c in class.unwrap_or("").split_whitespace().take(3) {
        out.push('.');
        push_clean(out, c);
    }
}

/// Errors that make a page unusable.
#[derive(Debug, thiserror::Error)]
pub enum CleanError {
    #[error("HTML could not be parsed: {0}")]
    Parse(String),
}

/// Cleans one HTML document.
pub fn clean_html(html: &str) -> Result<(String, PageMeta, Vec<Block>), CleanError> {
    clean_inner(html, false)
}

fn clean_inner(html: &str, nested: bool) -> Result<(String, PageMeta, Vec<Block>), CleanError> {
    let st = Rc::new(RefCell::new(State::default()));
    let s_el = st.clone();
    let s_txt = st.clone();
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![element!("*", move |el| {
                // lol_html gives HTML tag names in lowercase.
                let tag = el.tag_name();
                let mut s = s_el.borrow_mut();
                // The start tag as written, plus its end tag.
                let start_tag = el.source_location().bytes().len();
                s.markup_bytes = s
                    .markup_bytes
                    .saturating_add((start_tag + tag.len() + 3) as u32);
                read_meta(&mut s, &tag, el);
                let is_block = is_block(&tag);
                if is_block {
                    s.flush();
                }
                match tag.as_str() {
                    "img" if s.dropped_depth == 0 => s.image_count += 1,
                    "title" if s.dropped_depth <= 1 && s.title_raw.is_empty() => {
                        s.in_title = true;
                    }
                    _ => {}
                }
                if tag == "script"
                    && el
                        .get_attribute("type")
                        .is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json"))
                {
                    s.in_ld_json = true;
                    s.ld_json.push(String::new());
                }
                if !el.can_have_content() {
                    return Ok(());
                }
                s.close_implied(&tag);
                if s.stack.len() >= MAX_DEPTH {
                    return Ok(());
                }
                if tag == "a" && s.dropped_depth == 0 {
                    s.link_count += 1;
                }
                // The rewriter's output is thrown away: removing the
                // outermost element stops lol_html serialising every token
                // inside it, while its handlers still see them all.
                if s.stack.is_empty() {
                    el.remove();
                }
                let mut attrs = attrs_of(el, html);
                // A <dialog> shows only when open.
                attrs.hidden |= tag == "dialog" && !el.has_attribute("open");
                let serial = s.push(tag, &attrs);
                drop(s);
                let s_end = s_el.clone();
                el.on_end_tag(Box::new(move |_end| {
                    let mut s = s_end.borrow_mut();
                    if is_block {
                        s.flush();
                    }
                    s.in_title = false;
                    s.in_ld_json = false;
                    s.pop_to(serial);
                    Ok(())
                }))?;
                Ok(())
            })],
            document_content_handlers: vec![doc_text!(move |t| {
                let mut s = s_txt.borrow_mut();
                let chunk = t.as_str();
                if s.in_ld_json {
                    if let Some(last) = s.ld_json.last_mut() {
                        if last.len() < MAX_BLOCK_BYTES {
                            last.push_str(chunk);
                        }
                    }
                    return Ok(());
                }
                if s.in_title {
                    if s.title_raw.len() < 4096 {
                        s.title_raw.push_str(chunk);
                    }
                    return Ok(());
                }
                if s.dropped_depth > 0 {
                    if s.dropped_depth == s.noscript_depth
                        && s.noscript_raw.len() < MAX_NOSCRIPT_BYTES
                    {
                        s.noscript_raw.push_str(chunk);
                    }
                    return Ok(());
                }
                if s.raw.len() >= MAX_BLOCK_BYTES {
                    return Ok(());
                }
                s.raw.push_str(chunk);
                if s.hidden_depth > 0 {
                    s.hidden_raw_bytes += chunk.len();
                }
                s.chrome_role |= s.chrome_role_depth > 0;
                if s.link_depth > 0 {
                    s.link_raw.push_str(chunk);
                }
                Ok(())
            })],
            memory_settings: MemorySettings {
                max_allowed_memory_usage: MAX_PARSER_MEMORY,
                ..MemorySettings::new()
            },
            strict: false,
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    rewriter
        .write(html.as_bytes())
        .map_err(|e| CleanError::Parse(e.to_string()))?;
    rewriter
        .end()
        .map_err(|e| CleanError::Parse(e.to_string()))?;
    let mut s = Rc::try_unwrap(st)
        .map_err(|_| CleanError::Parse("state still shared".into()))?
        .into_inner();
    s.flush();
    let title = collapse(&decode_entities(&s.title_raw));
    read_json_ld(&mut s.meta, &s.ld_json);
    if s.meta.date.is_none() {
        s.meta.date = s.time_datetime.take();
    }
    // Pages rendered by JavaScript often give crawlers their content inside
    // <noscript> (Discourse forums do): when the page itself has almost no
    // text and <noscript> has plenty, that markup is cleaned too (one level).
    let text_chars: usize = s.blocks.iter().map(|b| b.text.len()).sum();
    if text_chars < 500 && s.noscript_raw.len() > 2000 && !nested {
        if let Ok((_, _, more)) = clean_inner(&s.noscript_raw, true) {
            s.blocks.extend(more);
        }
    }
    Ok((title, s.meta, s.blocks))
}

fn read_meta(s: &mut State, tag: &str, el: &lol_html::html_content::Element) {
    let attr = |n: &str| {
        el.get_attribute(n)
            .map(|v| collapse(&decode_entities(&v)))
            .filter(|v| !v.is_empty())
    };
    match tag {
        "html" if s.meta.language.is_none() => s.meta.language = attr("lang"),
        "meta" => {
            let key = attr("name")
                .or_else(|| attr("property"))
                .or_else(|| attr("itemprop"))
                .or_else(|| attr("http-equiv"));
            let (Some(key), Some(content)) = (key, attr("content")) else {
                return;
            };
            let m = &mut s.meta;
            match key.to_ascii_lowercase().as_str() {
                "description" | "og:description" if m.description.is_none() => {
                    m.description = Some(content)
                }
                "author" | "article:author" | "dc.creator" | "sailthru.author"
                | "parsely-author"
                    if m.author.is_none() && !content.starts_with("http") =>
                {
                    m.author = Some(content)
                }
                "article:published_time"
                | "datepublished"
                | "date"
                | "dc.date"
                | "dc.date.issued"
                | "pubdate"
                | "publish-date"
                | "sailthru.date"
                | "parsely-pub-date"
                    if m.date.is_none() =>
                {
                    m.date = Some(content)
                }
                "content-language" | "og:locale" | "language" if m.language.is_none() => {
                    m.language = Some(content.replace('_', "-"))
                }
                "og:title" | "twitter:title" if m.og_title.is_none() => m.og_title = Some(content),
                "og:site_name" if m.site_name.is_none() => m.site_name = Some(content),
                "og:url" if m.canonical_url.is_none() => m.canonical_url = Some(content),
                _ => {}
            }
        }
        "link" if attr("rel").is_some_and(|r| r.eq_ignore_ascii_case("canonical")) => {
            if let Some(href) = attr("href") {
                s.meta.canonical_url = Some(href);
            }
        }
        "time" if s.time_datetime.is_none() => s.time_datetime = attr("datetime"),
        _ => {}
    }
}

/// Author, date and headline from JSON-LD (`Article`, `NewsArticle`, ... or
/// a `@graph` of them), which wins over meta tags for the date.
fn read_json_ld(meta: &mut PageMeta, scripts: &[String]) {
    fn visit(v: &serde_json::Value, meta: &mut PageMeta, depth: usize) {
        if depth > 8 {
            return;
        }
        match v {
            serde_json::Value::Array(a) => a.iter().for_each(|x| visit(x, meta, depth + 1)),
            serde_json::Value::Object(o) => {
                if let Some(d) = o.get("datePublished").and_then(|d| d.as_str()) {
                    meta.date = Some(d.trim().to_string());
                }
                if meta.author.is_none() {
                    let author = o.get("author").and_then(|a| match a {
                        serde_json::Value::String(s) => Some(s.clone()),
                        serde_json::Value::Object(p) => {
                            p.get("name").and_then(|n| n.as_str()).map(str::to_string)
                        }
                        serde_json::Value::Array(list) => list
                            .iter()
                            .filter_map(|p| p.get("name").and_then(|n| n.as_str()).or(p.as_str()))
                            .next()
                            .map(str::to_string),
                        _ => None,
                    });
                    meta.author = author.map(|a| collapse(&a)).filter(|a| !a.is_empty());
                }
                if let Some(g) = o.get("@graph") {
                    visit(g, meta, depth + 1);
                }
            }
            _ => {}
        }
    }
    for s in scripts {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(s.trim()) {
            visit(&v, meta, 0);
        }
    }
}

/// The baseline that benchmarks compare against: one lol_html pass that
/// drops script and style and concatenates all other text.
pub fn bare_text(html: &str) -> String {
    let out = Rc::new(RefCell::new(String::new()));
    let skip = Rc::new(RefCell::new(0usize));
    let (o, s1, s2) = (out.clone(), skip.clone(), skip.clone());
    pass(
        html,
        Settings {
            element_content_handlers: vec![element!("script, style", move |el| {
                *s1.borrow_mut() += 1;
                let s = s1.clone();
                let end: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                    *s.borrow_mut() -= 1;
                    Ok(())
                });
                el.on_end_tag(end)?;
                Ok(())
            })],
            document_content_handlers: vec![doc_text!(move |t| {
                if *s2.borrow() == 0 {
                    let mut o = o.borrow_mut();
                    o.push_str(t.as_str());
                    o.push(' ');
                }
                Ok(())
            })],
            strict: false,
            ..Settings::new()
        },
    );
    let text = out.borrow().clone();
    text
}

/// Runs a benchmark pass over `html`, ignoring parse errors.
fn pass(html: &str, settings: Settings<'_, '_>) {
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    if rewriter.write(html.as_bytes()).is_ok() {
        let _ = rewriter.end();
    }
}

/// The floor of any structural pass over lol_html, for benchmarks: a
/// handler on every element and on every end tag that do nothing, and the
/// text counted. Clean cannot be faster than this.
pub fn structural_floor(html: &str) -> usize {
    let n = Rc::new(std::cell::Cell::new(0usize));
    let (n1, n2) = (n.clone(), n.clone());
    pass(
        html,
        Settings {
            element_content_handlers: vec![element!("*", move |el| {
                n1.set(n1.get() + 1);
                if el.can_have_content() {
                    let end: lol_html::EndTagHandler<'static> = Box::new(|_| Ok(()));
                    el.on_end_tag(end)?;
                }
                Ok(())
            })],
            document_content_handlers: vec![doc_text!(move |t| {
                n2.set(n2.get() + t.as_str().len());
                Ok(())
            })],
            strict: false,
            ..Settings::new()
        },
    );
    n.get()
}

/// Cleans a page message into a cleaned message.
pub fn clean_page(page: &Page) -> Result<Cleaned, CleanError> {
    let (title, meta, blocks) = clean_html(&page.html)?;
    Ok(Cleaned {
        id: page.id.clone(),
        url: page.url.clone(),
        final_url: page.final_url.clone(),
        fetched_at: page.fetched_at.clone(),
        title,
        meta,
        blocks,
    })
}

/// The clean stage: `pages` in, `cleaned` out.
#[derive(Default)]
pub struct CleanStage;

#[async_trait]
impl Stage for CleanStage {
    fn name(&self) -> &'static str {
        "clean"
    }
    fn inputs(&self) -> Vec<Topic> {
        vec![Topic::Pages]
    }
    fn outputs(&self) -> Vec<Topic> {
        vec![Topic::Cleaned]
    }

    async fn handle(&mut self, input: &Input) -> Handled {
        let page: Page = input.decode()?;
        let key = input
            .key
            .clone()
            .unwrap_or_else(|| gleaner_core::util::host_of(&page.url));
        // Parsing is CPU work: keep it off the async runtime's threads.
        let cleaned = tokio::task::spawn_blocking(move || clean_page(&page)).await??;
        Ok(vec![Output::json(Topic::Cleaned, key, &cleaned)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
