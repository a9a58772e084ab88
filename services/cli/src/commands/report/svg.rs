//! Small inline SVG charts for the crawl report: horizontal bars, stacked
//! bars, lines over time and a log-log scatter with a fitted line. Written
//! here rather than with plotters: plotters lays out text with system fonts
//! (font-kit), which a server may not have, and these charts are a few
//! rectangles, lines and labels that the browser sets in its own font.

use std::fmt::Write;

const W: f64 = 720.0;
const LABEL: f64 = 200.0;
const ROW: f64 = 22.0;
pub const COLOURS: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
];

/// Text for an SVG or HTML text node or a quoted attribute.
pub fn esc(s: &str) -> String {
    htmlize::escape_attribute(s).into_owned()
}

/// One bar per (label, value), longest first as given.
pub fn bars(rows: &[(String, f64)]) -> String {
    let stacked: Vec<(String, Vec<f64>)> =
        rows.iter().map(|(l, v)| (l.clone(), vec![*v])).collect();
    stacked_bars(&stacked, &[])
}

/// One bar per row, its parts in `COLOURS` order, with a legend of `series`.
pub fn stacked_bars(rows: &[(String, Vec<f64>)], series: &[String]) -> String {
    let max = rows
        .iter()
        .map(|(_, parts)| parts.iter().sum::<f64>())
        .fold(0.0, f64::max)
        .max(1e-9);
    let legend = if series.is_empty() { 0.0 } else { ROW * 1.5 };
    let h = legend + ROW * rows.len() as f64 + 10.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" font-size="12">"#
    );
    let mut x = LABEL;
    for (i, name) in series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let _ = write!(
            s,
            r#"<rect x="{x}" y="4" width="10" height="10" fill="{c}"/><text x="{}" y="13">{}</text>"#,
            x + 14.0,
            esc(name)
        );
        x += 24.0 + 7.0 * name.len() as f64;
    }
    let span = W - LABEL - 60.0;
    for (r, (label, parts)) in rows.iter().enumerate() {
        let y = legend + r as f64 * ROW;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            LABEL - 6.0,
            y + 15.0,
            esc(label)
        );
        let mut x = LABEL;
        for (i, v) in parts.iter().enumerate() {
            let w = v / max * span;
            let c = COLOURS[i % COLOURS.len()];
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{}" width="{w:.1}" height="{}" fill="{c}"><title>{}</title></rect>"#,
                y + 3.0,
                ROW - 6.0,
                fmt(*v)
            );
            x += w;
        }
        let total: f64 = parts.iter().sum();
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{}">{}</text>"#,
            x + 4.0,
            y + 15.0,
            fmt(total)
        );
    }
    s.push_str("</svg>");
    s
}

/// Lines of (x, y) points sharing axes from 0; x is labelled with `x_unit`.
pub fn lines(series: &[(String, Vec<(f64, f64)>)], x_unit: &str) -> String {
    let (h, left, bottom) = (260.0, 50.0, 30.0);
    let max_x = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(0.0, f64::max)
        .max(1e-9);
    let max_y = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0, f64::max)
        .max(1e-9);
    let px = |x: f64| left + x / max_x * (W - left - 20.0);
    let py = |y: f64| h - bottom - y / max_y * (h - bottom - 30.0);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" font-size="12">"#
    );
    axes(&mut s, left, h - bottom, W - 20.0, 30.0);
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="end">{} {x_unit}</text><text x="{}" y="26" text-anchor="end">{}</text>"#,
        W - 20.0,
        h - 8.0,
        fmt(max_x),
        left - 4.0,
        fmt(max_y)
    );
    for (i, (name, points)) in series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let path: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = write!(
            s,
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        let _ = write!(
            s,
            r#"<rect x="{}" y="6" width="10" height="10" fill="{c}"/><text x="{}" y="15">{}</text>"#,
            left + 10.0 + 140.0 * i as f64,
            left + 24.0 + 140.0 * i as f64,
            esc(name)
        );
    }
    s.push_str("</svg>");
    s
}

/// Rank / frequency points on log-log axes with the fitted line
/// `log10 f = a - exponent * log10 r`.
pub fn loglog(points: &[(f64, f64)], a: f64, exponent: f64) -> String {
    let (h, left, bottom) = (300.0, 50.0, 30.0);
    let lx: Vec<f64> = points.iter().map(|p| p.0.max(1.0).log10()).collect();
    let ly: Vec<f64> = points.iter().map(|p| p.1.max(1.0).log10()).collect();
    let max_x = lx.iter().copied().fold(0.0, f64::max).max(1e-9);
    let max_y = ly.iter().copied().fold(0.0, f64::max).max(1e-9);
    let px = |x: f64| left + x / max_x * (W - left - 20.0);
    let py = |y: f64| h - bottom - y / max_y * (h - bottom - 20.0);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" font-size="12">"#
    );
    axes(&mut s, left, h - bottom, W - 20.0, 20.0);
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="end">rank (log, 10^{:.1})</text><text x="{}" y="16" text-anchor="end">10^{:.1}</text>"#,
        W - 20.0,
        h - 8.0,
        max_x,
        left - 4.0,
        max_y
    );
    for (x, y) in lx.iter().zip(&ly) {
        let _ = write!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="1.6" fill="#4e79a7"/>"##,
            px(*x),
            py(*y)
        );
    }
    let fit = |x: f64| (a - exponent * x).max(0.0);
    let _ = write!(
        s,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#e15759" stroke-width="2"/>"##,
        px(0.0),
        py(fit(0.0)),
        px(max_x),
        py(fit(max_x))
    );
    s.push_str("</svg>");
    s
}

fn axes(s: &mut String, left: f64, bottom: f64, right: f64, top: f64) {
    let _ = write!(
        s,
        r##"<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/><line x1="{left}" y1="{bottom}" x2="{left}" y2="{top}" stroke="#888"/>"##
    );
}

/// A number without needless decimals.
pub fn fmt(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_svg_with_their_labels_escaped() {
        let b = bars(&[("a<b".into(), 3.0), ("c".into(), 1.5)]);
        assert!(b.starts_with("<svg") && b.ends_with("</svg>"));
        assert!(b.contains("a&lt;b") && b.contains(">3<") && b.contains(">1.5<"));
        let l = lines(&[("pages".into(), vec![(0.0, 0.0), (2.0, 5.0)])], "s");
        assert!(l.contains("<polyline") && l.contains("pages"));
        let z = loglog(&[(1.0, 100.0), (10.0, 10.0)], 2.0, 1.0);
        assert_eq!(z.matches("<circle").count(), 2);
    }
}
