//! The score badge (`--badge PATH`): an SVG in the flat style of shields.io, for a README or
//! a job summary.
//!
//! The label is `scout`; the message is the report's score (the lowest server score,
//! [`score::lowest`]) as `87/100`, coloured like shields.io's score colours (≥ 90 bright
//! green, ≥ 80 green, ≥ 70 yellow-green, ≥ 60 yellow, ≥ 50 orange, below red). A report
//! with no score — a blocked, interrupted or unassessed server, or no server at all — gets
//! a grey `not assessed` badge: it never shows a number it does not have.

use crate::report::model::Report;
use crate::report::score;

/// The grey of a badge without a score.
pub const GREY: &str = "#9f9f9f";

/// The colour of a score.
pub fn colour(score: Option<u8>) -> &'static str {
    match score {
        None => GREY,
        Some(90..) => "#4c1",
        Some(80..) => "#97ca00",
        Some(70..) => "#a4a61d",
        Some(60..) => "#dfb317",
        Some(50..) => "#fe7d37",
        Some(_) => "#e05d44",
    }
}

/// The message of a score.
pub fn message(score: Option<u8>) -> String {
    match score {
        Some(n) => format!("{n}/100"),
        None => "not assessed".into(),
    }
}

/// Approximate width in pixels of `text` in 11 px Verdana (what shields.io measures with).
fn text_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            '0'..='9' => 7.0,
            ' ' => 3.9,
            '/' => 4.9,
            'i' | 'l' | 'j' => 3.1,
            'f' | 't' | 'r' => 4.3,
            'm' | 'w' => 9.9,
            c if c.is_ascii_uppercase() => 7.5,
            _ => 6.6,
        })
        .sum()
}

/// Escapes text for SVG.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A flat badge with `label` on grey and `message` on `colour`.
pub fn svg(label: &str, message: &str, colour: &str) -> String {
    // Widths in px, 5 px padding either side, as shields.io does.
    let lw = (text_width(label) + 10.0).round() as u32;
    let mw = (text_width(message) + 10.0).round() as u32;
    let w = lw + mw;
    // Text is drawn at 10× and scaled down, like shields.io, for crisp rendering.
    let (lx, mx) = (lw * 5, lw * 10 + mw * 5);
    let (ltl, mtl) = ((lw - 10) * 10, (mw - 10) * 10);
    let (label, message) = (xml(label), xml(message));
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label="{label}: {message}"><title>{label}: {message}</title><linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient><clipPath id="r"><rect width="{w}" height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{mw}" height="20" fill="{colour}"/><rect width="{w}" height="20" fill="url(#s)"/></g><g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110"><text aria-hidden="true" x="{lx}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="{ltl}">{label}</text><text x="{lx}" y="140" transform="scale(.1)" fill="#fff" textLength="{ltl}">{label}</text><text aria-hidden="true" x="{mx}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="{mtl}">{message}</text><text x="{mx}" y="140" transform="scale(.1)" fill="#fff" textLength="{mtl}">{message}</text></g></svg>
"##
    )
}

/// The badge of a report.
pub fn render(report: &Report) -> String {
    let s = score::lowest(report);
    svg("scout", &message(s), colour(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_follow_the_score_and_no_score_is_grey() {
        assert_eq!(colour(Some(100)), "#4c1");
        assert_eq!(colour(Some(90)), "#4c1");
        assert_eq!(colour(Some(89)), "#97ca00");
        assert_eq!(colour(Some(65)), "#dfb317");
        assert_eq!(colour(Some(0)), "#e05d44");
        assert_eq!(colour(None), GREY);
        assert_eq!(message(None), "not assessed");
        assert_eq!(message(Some(87)), "87/100");
    }

    #[test]
    fn the_svg_is_well_formed_and_escaped() {
        let s = svg("a<b", "x&y", "#4c1");
        assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(s.contains("a&lt;b: x&amp;y"));
        assert!(!s.contains("a<b"));
        assert_eq!(s.matches("<text").count(), 4);
        assert_eq!(s.matches("</text>").count(), 4);
        let wide = svg("scout", "not assessed", GREY);
        let narrow = svg("scout", "9/100", GREY);
        let width = |s: &str| -> u32 {
            s.split("width=\"")
                .nth(1)
                .and_then(|w| w.split('"').next())
                .and_then(|w| w.parse().ok())
                .unwrap_or(0)
        };
        assert!(width(&wide) > width(&narrow));
    }
}
