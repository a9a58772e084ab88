//! The clean stage: streams a page's HTML through lol_html, drops what is
//! never content (script, style, noscript, template, svg, comments, ...), and
//! emits the title, page metadata and the ordered text blocks with their
//! features (tag path, text length, link text, links, images, markup bytes,
//! hidden text, chrome ARIA roles).

mod attrs;
mod bench;
mod blocks;
mod entities;
mod images;
mod json_ld;
mod local_date;
mod meta;
mod microdata;
mod mojibake;
mod pictured;
mod stage;
mod tags;
mod visible;

use attrs::*;
use blocks::*;
use entities::collapse;
use gleaner_core::messages::{Block, PageMeta};
use lol_html::{doc_text, element, HtmlRewriter, MemorySettings, Settings};
use meta::*;
use std::cell::RefCell;
use std::rc::Rc;
use tags::*;

pub use bench::{bare_text, structural_floor};
pub use entities::{decode_attribute, decode_entities};
pub use stage::{clean_page, CleanSpec, CleanStage};
pub use visible::shows_more_text_than;

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
                    match tag.as_str() {
                        "br" => s.breaks += 1,
                        _ => s.boundary = true,
                    }
                }
                match tag.as_str() {
                    "img" if s.dropped_depth == 0 => {
                        s.image_count += 1;
                        let wanted = s.meta.pictured_author.is_none()
                            || s.meta.images.len() < images::MAX_IMAGES;
                        if wanted && s.hidden_depth == 0 {
                            let img = images::img_attrs_of(el, html);
                            if s.meta.pictured_author.is_none() {
                                s.meta.pictured_author = pictured::portrait_name(&s.path, &img);
                            }
                            if s.meta.images.len() < images::MAX_IMAGES {
                                let before = s.blocks.len();
                                s.meta.images.extend(images::content_image(&img, before));
                            }
                        }
                    }
                    "code" | "kbd" | "samp" => s.has_code = true,
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
                    // A name in a <meta> inside an author element.
                    if s.dropped_depth == 0 && s.microdata.is_open() {
                        if let Some(prop) = el.get_attribute("itemprop") {
                            let content = el.get_attribute("content");
                            s.microdata.start(&prop, content.as_deref(), None);
                        }
                    }
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
                let is_link = tag == "a";
                let serial = s.push(tag, &attrs);
                if let Some(t) = attrs.itemtype.as_deref().and_then(json_ld::page_type_named) {
                    s.microdata_type.get_or_insert(t);
                    s.microdata_typed_items += 1;
                }
                // In a figure, a `creator` is the photographer's (the open
                // elements looked at only for an element with an itemprop).
                let byline_place = |s: &State| s.dropped_depth == 0 && !s.in_a_figure();
                if let Some(prop) = attrs.itemprop.as_deref().filter(|_| byline_place(&s)) {
                    s.microdata.start(prop, None, Some(serial));
                }
                if attrs.rel_author && s.dropped_depth == 0 && s.hidden_depth == 0 {
                    s.linked_author.start(serial);
                }
                if s.dropped_depth == 0
                    && s.microdata.found.is_none()
                    && !s.microdata.is_open()
                    && attrs
                        .class
                        .as_deref()
                        .is_some_and(|c| microdata::is_poster(is_link, c))
                {
                    s.poster.start(serial);
                }
                drop(s);
                let s_end = s_el.clone();
                el.on_end_tag(Box::new(move |_end| {
                    let mut s = s_end.borrow_mut();
                    if is_block {
                        s.flush();
                        s.boundary = true;
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
                s.microdata.text(chunk);
                s.linked_author.text(chunk);
                s.poster.text(chunk);
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
    // The page's type: JSON-LD's, else its microdata's (Stack Exchange
    // marks a question page `QAPage` so), else `og:type`. Microdata
    // names the page only with one such item: a blog's index marks each
    // teaser a `BlogPosting`, and is no article.
    if let (Some(t), 1) = (s.microdata_type, s.microdata_typed_items) {
        s.meta.page_type = Some(t.to_string());
    }
    // An author given only as a profile's URL gives way to any name.
    let profile = s.meta.author.take_if(|a| a.starts_with("http"));
    let citation_authors = std::mem::take(&mut s.citation_authors);
    meta::set_citation_authors(&mut s.meta, citation_authors);
    let article_body = json_ld::read_json_ld(&mut s.meta, &s.ld_json);
    if s.meta.author.is_none() {
        s.meta.author = s
            .poster
            .found
            .take()
            .or(s.microdata.found.take())
            .or(profile);
    }
    s.meta.linked_author = s.linked_author.found.take();
    s.meta.date = match s.meta.date.take() {
        Some(date) => Some(local_date::in_publishers_offset(date, &s.time_datetimes)),
        None => s.time_datetimes.first().cloned(),
    };
    // Pages rendered by JavaScript often give crawlers their content inside
    // <noscript> (Discourse forums do): when the page itself has almost no
    // text and <noscript> has plenty, that markup is cleaned too (one level).
    let text_chars: usize = s.blocks.iter().map(|b| b.text.len()).sum();
    if text_chars < 500 && s.noscript_raw.len() > 2000 && !nested {
        if let Ok((_, inner, more)) = clean_inner(&s.noscript_raw, true) {
            s.blocks.extend(more);
            // Its bylines and dates too (a Discourse topic's posts mark
            // their authors with microdata there).
            meta::fill_missing(&mut s.meta, inner);
        }
    }
    // A page whose article is only in its JSON-LD `articleBody` (rendered
    // by script, or paywalled for readers and not for search engines): that
    // text becomes the page's blocks when the page shows far less.
    let text_chars: usize = s.blocks.iter().map(|b| b.text.len()).sum();
    if let Some(body) = article_body.filter(|b| b.len() >= 500 && b.len() > 2 * text_chars) {
        if body.contains("</") && !nested {
            // Some sites put the article's markup there.
            if let Ok((_, _, more)) = clean_inner(&body, true) {
                s.blocks.extend(more);
            }
        } else {
            let first = s.serial;
            s.blocks
                .extend(blocks::body_blocks(&decode_entities(&body), first));
        }
    }
    Ok((title, s.meta, s.blocks))
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
