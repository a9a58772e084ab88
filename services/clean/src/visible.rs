//! A quick bound on how much text a page shows, for fetch's block-page
//! check: most pages that mention a challenge marker (a reCAPTCHA comment
//! form, a Cloudflare script) are articles, and a full clean of each cost
//! more than the rest of fetch. This pass stops as soon as the bound is
//! passed, usually in the first paragraphs.

use lol_html::{doc_text, element, HtmlRewriter, Settings};
use std::cell::Cell;
use std::rc::Rc;

/// Whether `html` shows more than `chars` characters of text, not counting
/// whitespace or what scripts, styles, templates, `noscript` and SVG hold.
/// Counts more than clean keeps (hidden elements count), never less.
pub fn shows_more_text_than(html: &str, chars: usize) -> bool {
    let seen = Rc::new(Cell::new(0usize));
    let skip = Rc::new(Cell::new(0usize));
    let (s1, s2, seen2) = (skip.clone(), skip.clone(), seen.clone());
    let settings = Settings {
        element_content_handlers: vec![element!(
            "script, style, template, noscript, svg",
            move |el| {
                if el.can_have_content() {
                    s1.set(s1.get() + 1);
                    let s = s1.clone();
                    let end: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                        s.set(s.get().saturating_sub(1));
                        Ok(())
                    });
                    el.on_end_tag(end)?;
                }
                Ok(())
            }
        )],
        document_content_handlers: vec![doc_text!(move |t| {
            if s2.get() == 0 {
                let n = t.as_str().chars().filter(|c| !c.is_whitespace()).count();
                seen2.set(seen2.get() + n);
                if seen2.get() > chars {
                    // Enough: stop the pass here.
                    return Err("shows enough text".into());
                }
            }
            Ok(())
        })],
        strict: false,
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    if rewriter.write(html.as_bytes()).is_ok() {
        let _ = rewriter.end();
    }
    seen.get() > chars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_shows_and_stops_past_the_bound() {
        let page = "<html><head><title>T</title><style>p { color: red }</style>\
            <script>var x = 'lots of script text';</script></head>\
            <body><p>Hello   world</p><noscript>Enable JavaScript</noscript></body></html>";
        // "T" + "Helloworld": 11 characters shown.
        assert!(shows_more_text_than(page, 10));
        assert!(!shows_more_text_than(page, 11));
        let long = format!("<p>{}</p>", "word ".repeat(100_000));
        assert!(shows_more_text_than(&long, 4000));
        assert!(!shows_more_text_than("", 0));
    }
}
