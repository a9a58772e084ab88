//! Baselines for the benchmarks: a bare lol_html text pass and the floor
//! of any structural pass.

use lol_html::{doc_text, element, HtmlRewriter, Settings};
use std::cell::RefCell;
use std::rc::Rc;

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
