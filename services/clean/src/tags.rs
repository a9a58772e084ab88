//! Which elements are dropped, which start a block, and which close an
//! open <p> (the HTML parsing rules clean needs).

/// Elements whose text is never content. Ruby readings (`<rt>`, and the
/// parentheses `<rp>` puts around them for browsers without ruby) would
/// put a word's pronunciation inside the sentence: 漢字(かんじ). MathML's
/// formulas are kept as their symbols (what a reader sees, as Readability
/// keeps them), but not the TeX or other source a formula carries beside
/// them in `<annotation>`, nor a hidden formula (blocks.rs).
pub(crate) fn is_dropped(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "rt"
            | "rp"
            | "style"
            | "noscript"
            | "template"
            | "svg"
            | "annotation"
            | "annotation-xml"
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
pub(crate) fn is_block(tag: &str) -> bool {
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
pub(crate) fn closes_p(tag: &str) -> bool {
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
