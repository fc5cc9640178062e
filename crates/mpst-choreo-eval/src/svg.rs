//! Line charts as hand-written SVG (no fonts or system libraries needed to produce
//! them; viewers render the text): linear x axis, linear or logarithmic y axis,
//! solid or dashed lines with point markers, and a legend.

use std::fmt::Write;

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Line {
    /// Its legend entry.
    pub name: String,
    /// An SVG colour.
    pub color: &'static str,
    /// Its points (x, y), drawn in order.
    pub points: Vec<(f64, f64)>,
    /// Dashed, without markers (e.g. a theoretical limit).
    pub dashed: bool,
}

/// A chart's title, axis labels and scale.
#[derive(Clone, Debug)]
pub struct Axes<'a> {
    /// The title above the plot.
    pub title: &'a str,
    /// The x axis label.
    pub x: &'a str,
    /// The y axis label.
    pub y: &'a str,
    /// A logarithmic y axis (values must be positive).
    pub log_y: bool,
}

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;

fn nice_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 7.0)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).floor() * step;
    let mut ticks = Vec::new();
    while t <= hi + step * 1e-6 {
        ticks.push(t);
        t += step;
    }
    ticks
}

fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi * 1.0001 {
        for m in [1.0, 2.0, 5.0] {
            let t = decade * m;
            if t >= lo * 0.9999 && t <= hi * 1.0001 {
                ticks.push(t);
            }
        }
        decade *= 10.0;
    }
    ticks
}

fn label(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The chart as an SVG document.
pub fn chart(axes: &Axes<'_>, lines: &[Line]) -> String {
    let lines: Vec<&Line> = lines.iter().filter(|l| !l.points.is_empty()).collect();
    let all = lines.iter().flat_map(|l| l.points.iter());
    let finite: Vec<(f64, f64)> = all
        .filter(|p| p.0.is_finite() && p.1.is_finite() && (!axes.log_y || p.1 > 0.0))
        .copied()
        .collect();
    let (mut x0, mut x1) = finite
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (mut y0, mut y1) = finite
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if finite.is_empty() {
        (x0, x1, y0, y1) = (0.0, 1.0, 1.0, 10.0);
    }
    let (xt, yt) = if axes.log_y {
        y0 = 10f64.powf(y0.log10().floor());
        y1 = 10f64.powf(y1.log10().ceil()).max(y0 * 10.0);
        (nice_ticks(x0.min(0.0), x1), log_ticks(y0, y1))
    } else {
        let yt = nice_ticks(y0.min(0.0), y1 * 1.05);
        y0 = yt[0];
        y1 = *yt.last().unwrap_or(&1.0);
        (nice_ticks(x0.min(0.0), x1), yt)
    };
    x0 = xt[0];
    x1 = xt.last().copied().unwrap_or(1.0).max(x1);
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0).max(1e-9) * pw;
    let sy = |y: f64| {
        let f = if axes.log_y {
            (y.max(y0).log10() - y0.log10()) / (y1.log10() - y0.log10())
        } else {
            (y - y0) / (y1 - y0).max(1e-9)
        };
        TOP + ph - f.clamp(0.0, 1.0) * ph
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        LEFT + pw / 2.0,
        axes.title
    );
    for &t in &xt {
        let x = sx(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#eee"/>"##,
            TOP + ph
        );
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            TOP + ph + 16.0,
            label(t)
        );
    }
    for &t in &yt {
        let y = sy(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/>"##,
            LEFT + pw
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            y + 4.0,
            label(t)
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        H - 14.0,
        axes.x
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        axes.y
    );
    for (n, line) in lines.iter().enumerate() {
        let pts: Vec<String> = line
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite() && (!axes.log_y || p.1 > 0.0))
            .map(|p| format!("{:.1},{:.1}", sx(p.0), sy(p.1)))
            .collect();
        let dash = if line.dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{dash}/>"#,
            pts.join(" "),
            line.color
        );
        if !line.dashed {
            for p in &pts {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(
                    s,
                    r#"<circle cx="{x}" cy="{y}" r="3" fill="{}"/>"#,
                    line.color
                );
            }
        }
        let ly = TOP + 10.0 + n as f64 * 20.0;
        let lx = LEFT + pw + 12.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{}" stroke-width="2"{dash}/>"#,
            lx + 24.0,
            line.color
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 30.0,
            ly + 4.0,
            line.name
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_every_line_and_legend() {
        let lines = vec![
            Line {
                name: "a".into(),
                color: "red",
                points: vec![(1.0, 2.0), (2.0, 40.0)],
                dashed: false,
            },
            Line {
                name: "limit".into(),
                color: "gray",
                points: vec![(0.0, 5.0), (2.0, 5.0)],
                dashed: true,
            },
        ];
        for log_y in [false, true] {
            let axes = Axes {
                title: "t",
                x: "x",
                y: "y",
                log_y,
            };
            let svg = chart(&axes, &lines);
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
            assert_eq!(svg.matches("<polyline").count(), 2);
            assert_eq!(svg.matches("<circle").count(), 2);
            assert!(svg.contains(">limit</text>") && !svg.contains("NaN"));
        }
    }
}
