//! The drawing surface of sequence charts: lifelines at fixed columns, rows going
//! down, and SVG elements written as they are placed.

use std::fmt::Write as _;

use crate::svg::{escape, text_width};

/// Font size of labels, in pixels.
pub const FONT: f64 = 13.0;
/// Height of one message row.
pub const ROW: f64 = 34.0;
/// Height of a role's head box.
const HEAD: f64 = 30.0;
/// Space above the first head and around the picture.
const MARGIN: f64 = 16.0;
/// Horizontal space a frame takes outside the outermost lifelines, per nesting level.
pub const INSET: f64 = 10.0;

/// A sequence chart being drawn.
pub struct Canvas {
    roles: Vec<String>,
    xs: Vec<f64>,
    /// Where the next row goes.
    pub y: f64,
    body: String,
    /// The deepest frame nesting seen, for the picture's margins.
    depth: usize,
    width: f64,
}

impl Canvas {
    /// A chart with one lifeline per role, spaced so that `widest` (the longest
    /// label) fits between neighbours.
    pub fn new(roles: Vec<String>, widest: f64, depth: usize) -> Self {
        let gap = (widest + 40.0).max(110.0);
        let left = MARGIN + depth as f64 * INSET + 60.0;
        let xs: Vec<f64> = (0..roles.len()).map(|i| left + i as f64 * gap).collect();
        let width = xs.last().copied().unwrap_or(left) + 60.0 + depth as f64 * INSET + MARGIN;
        Canvas {
            roles,
            xs,
            y: MARGIN + HEAD + 20.0,
            body: String::new(),
            depth,
            width,
        }
    }

    /// The column of `role`, or the left edge for a role the chart does not know
    /// (never the case for checked protocols and runs; no panic either way).
    pub fn x(&self, role: &str) -> f64 {
        self.roles
            .iter()
            .position(|r| r == role)
            .map_or(MARGIN, |i| self.xs[i])
    }

    /// Left and right edge of a frame at nesting `level` (0 = outermost).
    pub fn frame_edges(&self, level: usize) -> (f64, f64) {
        let inset = (self.depth.saturating_sub(level)) as f64 * INSET;
        let first = self.xs.first().copied().unwrap_or(MARGIN);
        let last = self.xs.last().copied().unwrap_or(MARGIN);
        (first - 50.0 - inset, last + 50.0 + inset)
    }

    /// A message arrow from `from`'s lifeline at `y0` to `to`'s at `y1`, with
    /// `label` above its middle. `lost` draws it dashed in red, ending in a cross
    /// halfway: the message is never received.
    pub fn arrow(&mut self, from: &str, to: &str, label: &str, y0: f64, y1: f64, lost: bool) {
        let (x0, x1) = (self.x(from), self.x(to));
        let (x1, y1) = if lost {
            ((x0 + x1) / 2.0, (y0 + y1) / 2.0)
        } else {
            (x1, y1)
        };
        let colour = if lost { "#b3261e" } else { "#1f2937" };
        let dash = if lost {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            "<g class=\"message\"><line x1=\"{x0:.1}\" y1=\"{y0:.1}\" x2=\"{x1:.1}\" y2=\"{y1:.1}\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"{dash}/>"
        );
        if lost {
            let _ = writeln!(
                self.body,
                "<path d=\"M{:.1},{:.1} l10,10 m0,-10 l-10,10\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                x1 - 5.0,
                y1 - 5.0
            );
        } else {
            // An open arrowhead along the arrow's direction.
            let (dx, dy) = (x1 - x0, y1 - y0);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (ux, uy) = (dx / len, dy / len);
            let (bx, by) = (x1 - ux * 9.0, y1 - uy * 9.0);
            let _ = writeln!(
                self.body,
                "<path d=\"M{:.1},{:.1} L{x1:.1},{y1:.1} L{:.1},{:.1}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
                bx - uy * 5.0,
                by + ux * 5.0,
                bx + uy * 5.0,
                by - ux * 5.0
            );
        }
        let (mx, my) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0 - 6.0);
        let _ = writeln!(
            self.body,
            "<text x=\"{mx:.1}\" y=\"{my:.1}\" text-anchor=\"middle\" class=\"label\">{}</text></g>",
            escape(label)
        );
    }

    /// A frame from `top` to the current row at nesting `level`, with `keyword`
    /// (`alt`, `loop`) in its corner tab and `guard` beside it.
    pub fn frame(&mut self, level: usize, top: f64, keyword: &str, guard: &str) {
        let (left, right) = self.frame_edges(level);
        let bottom = self.y - 8.0;
        let tab = text_width(keyword, FONT) + 16.0;
        self.reach(left + tab + 8.0 + text_width(guard, 12.0) + 8.0);
        let _ = writeln!(
            self.body,
            "<g class=\"frame {keyword}\"><rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
             fill=\"none\" stroke=\"#6b7280\" stroke-width=\"1.2\"/>\
             <path d=\"M{left:.1},{:.1} h{tab:.1} v12 l-8,8 h{:.1} z\" fill=\"#eef2ff\" stroke=\"#6b7280\" stroke-width=\"1.2\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"keyword\">{}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"guard\">[{}]</text></g>",
            right - left,
            bottom - top,
            top,
            -(tab - 8.0),
            left + 6.0,
            top + 14.0,
            escape(keyword),
            left + tab + 8.0,
            top + 14.0,
            escape(guard)
        );
    }

    /// A dashed line across the frame at nesting `level`, between two branches.
    pub fn separator(&mut self, level: usize) {
        let (left, right) = self.frame_edges(level);
        let y = self.y - 8.0;
        let _ = writeln!(
            self.body,
            "<line class=\"or\" x1=\"{left:.1}\" y1=\"{y:.1}\" x2=\"{right:.1}\" y2=\"{y:.1}\" \
             stroke=\"#6b7280\" stroke-dasharray=\"5 4\"/>"
        );
    }

    /// A note over every lifeline at the current row: `text` in a box.
    pub fn note(&mut self, text: &str, alarm: bool) {
        let (left, right) = self.frame_edges(self.depth);
        let (fill, stroke) = if alarm {
            ("#fde8e7", "#b3261e")
        } else {
            ("#f3f4f6", "#6b7280")
        };
        let y = self.y - 10.0;
        let (left, right) = {
            let needed = text_width(text, FONT) + 20.0;
            let centre = (left + right) / 2.0;
            let half = ((right - left - 80.0).max(needed)) / 2.0 + 40.0;
            // Never left of the picture: a long note grows to the right.
            let left = (centre - half).max(MARGIN - 40.0);
            (left, left + 2.0 * half)
        };
        self.reach(right - 40.0);
        let _ = writeln!(
            self.body,
            "<g class=\"note\"><rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"24\" rx=\"3\" \
             fill=\"{fill}\" stroke=\"{stroke}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" \
             class=\"label\">{}</text></g>",
            left + 40.0,
            right - left - 80.0,
            (left + right) / 2.0,
            y + 16.0,
            escape(text)
        );
        self.y += ROW;
    }

    /// A small text at `role`'s lifeline on the current row (e.g. `continue t`).
    pub fn mark(&mut self, role_x: f64, text: &str) {
        let _ = writeln!(
            self.body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"mark\">{}</text>",
            role_x + 6.0,
            self.y - 4.0,
            escape(text)
        );
    }

    /// Widens the picture so that a label reaching `right` fits.
    pub fn reach(&mut self, right: f64) {
        self.width = self.width.max(right + MARGIN);
    }

    /// The finished SVG document: heads, lifelines behind everything drawn, feet.
    pub fn finish(self, title: &str) -> String {
        let bottom = self.y + 4.0;
        let height = bottom + HEAD + MARGIN;
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence-chart\" width=\"{w:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {w:.0} {height:.0}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n\
             <title>{}</title>\n\
             <style>.label{{font-size:{FONT}px;fill:#111827}} .keyword{{font-size:12px;font-weight:bold;fill:#1f2937}} \
             .guard{{font-size:12px;fill:#374151}} .mark{{font-size:11px;font-style:italic;fill:#4b5563}} \
             .role{{font-size:14px;font-weight:bold;fill:#111827}}</style>\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
            escape(title),
            w = self.width,
        );
        for (role, &x) in self.roles.iter().zip(&self.xs) {
            let _ = writeln!(
                out,
                "<line class=\"lifeline\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" \
                 stroke=\"#9ca3af\" stroke-dasharray=\"4 4\"/>",
                MARGIN + HEAD
            );
            for top in [MARGIN, bottom] {
                let w = text_width(role, 14.0) + 20.0;
                let _ = writeln!(
                    out,
                    "<g class=\"role\"><rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{w:.1}\" height=\"{HEAD}\" rx=\"4\" \
                     fill=\"#fff3c4\" stroke=\"#444\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" \
                     class=\"role\">{}</text></g>",
                    x - w / 2.0,
                    top + 20.0,
                    escape(role)
                );
            }
        }
        out.push_str(&self.body);
        out.push_str("</svg>\n");
        out
    }
}
