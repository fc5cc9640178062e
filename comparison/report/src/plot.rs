//! SVG plots in the style of the paper's Fig. 6: throughput (n/µs) against n, one line per
//! implementation. One plot per protocol and runtime (async implementations on that tokio
//! runtime, thread-based and sequential peers on both plots). Text is laid out with
//! plotters' built-in estimate, so no system fonts (fontconfig) are needed.

use std::path::Path;

use plotters::prelude::*;

use crate::analysis::Protocol;

/// Distinct colours, ours first.
const COLOURS: [RGBColor; 10] = [
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
];

/// A series to draw: its legend label and (n, throughput) points.
type Series = (String, Vec<(f64, f64)>);

fn series(protocol: &Protocol<'_>, runtime: &str) -> Vec<Series> {
    protocol
        .rows()
        .into_iter()
        .filter(|(_, r)| r == runtime || r == "threads" || r == "sequential")
        .map(|(implementation, r)| {
            let points = protocol
                .sizes()
                .into_iter()
                .filter_map(|n| {
                    protocol
                        .get(&implementation, &r, n)
                        .map(|m| (n as f64, m.throughput()))
                })
                .collect();
            let label = if r == runtime {
                implementation
            } else {
                format!("{implementation} ({r})")
            };
            (label, points)
        })
        .collect()
}

/// Draws `title`'s plot for `runtime` into `path`.
pub fn draw(
    path: &Path,
    title: &str,
    x_label: &str,
    protocol: &Protocol<'_>,
    runtime: &str,
) -> Result<(), String> {
    let series = series(protocol, runtime);
    let points = || series.iter().flat_map(|(_, p)| p.iter());
    let (x_min, x_max) = points().fold((f64::MAX, f64::MIN), |(lo, hi), &(x, _)| {
        (lo.min(x), hi.max(x))
    });
    let y_max = points().fold(0.0f64, |hi, &(_, y)| hi.max(y));
    if series.is_empty() || x_min > x_max {
        return Err(format!("no measurements to plot for {title} on {runtime}"));
    }
    let margin = ((x_max - x_min) * 0.05).max(1.0);
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    let error = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| error(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{title} — {runtime} runtime"), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (x_min - margin)..(x_max + margin),
            0.0..(y_max * 1.1).max(1e-9),
        )
        .map_err(|e| error(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("throughput (n/µs)")
        .x_labels(6)
        .y_labels(8)
        .draw()
        .map_err(|e| error(&e))?;
    for (index, (label, points)) in series.iter().enumerate() {
        let colour = COLOURS[index % COLOURS.len()];
        let style = ShapeStyle::from(&colour).stroke_width(2);
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))
            .map_err(|e| error(&e))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
            .map_err(|e| error(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| error(&e))?;
    root.present().map_err(|e| error(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Measurement;

    #[test]
    fn draws_an_svg_with_every_series_in_the_legend() {
        let m = |implementation: &str, runtime: &str, size, median_ns| Measurement {
            group: "fft".into(),
            implementation: String::from(implementation),
            runtime: String::from(runtime),
            size,
            median_ns,
            median_ci_ns: (median_ns, median_ns),
            best_ns: median_ns,
        };
        let all = vec![
            m("ours", "multi-thread", 10, 100.0),
            m("ours", "multi-thread", 20, 150.0),
            m("ours", "current-thread", 10, 1.0),
            m("rustfft", "sequential", 10, 50.0),
        ];
        let protocol = Protocol::new(&all, "fft");
        let path = std::env::temp_dir().join(format!("report-plot-{}.svg", std::process::id()));
        draw(&path, "FFT", "n", &protocol, "multi-thread").unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        let texts: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(
            texts.contains(&"ours") && texts.contains(&"rustfft (sequential)"),
            "legend"
        );
        assert!(
            !svg.contains("current-thread runtime"),
            "only the requested runtime"
        );
    }
}
