//! How k-MC's time and memory grow with the size `n` of each benchmark family (ring,
//! nested choice, k-buffering, stream): each size is checked in a child process of its
//! own, so that its peak resident memory (`VmHWM`, Linux) is its alone.
//!
//! ```sh
//! cargo run --release -p mpst-fsm --example kmc_scaling            # table + kmc_scaling.svg
//! cargo run --release -p mpst-fsm --example kmc_scaling -- ring 1000   # one size
//! ```
//!
//! Each line gives the family, `n`, the bound `k` (the least one the family needs:
//! `max(1, ⌈n/2⌉)` for stream and k-buffering, 1 for the others), the configurations
//! and transitions explored, the wall time of `check_kmc` and the process's peak RSS.
//! A measurement, not a test: wall time depends on the load.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use mpst_fsm::families::Family;
use mpst_fsm::kmc::{check_kmc_with, KmcOptions};

/// The sizes measured per family, up to the largest each family accepts.
fn sizes(family: Family) -> &'static [usize] {
    match family {
        Family::Ring => &[100, 200, 400, 600, 800, 1000, 2000],
        Family::NestedChoice => &[3, 4, 5, 6, 7, 8],
        Family::Stream | Family::KBuffering => &[1000, 10_000, 30_000, 100_000],
    }
}

/// The least bound for which the optimised system of `family` at size `n` is k-MC.
fn bound(family: Family, n: usize) -> usize {
    match family {
        Family::Stream | Family::KBuffering => n.div_ceil(2).max(1),
        Family::Ring | Family::NestedChoice => 1,
    }
}

/// Peak resident set size of this process in kB, from `/proc/self/status`.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One measurement: `family n k configurations transitions seconds peak_kb holds`.
fn measure(family: Family, n: usize) -> String {
    let system = family
        .instance(n)
        .expect("a size the family accepts")
        .optimised_system();
    let k = bound(family, n);
    let options = KmcOptions {
        max_configurations: 50_000_000,
        ..KmcOptions::new(k)
    };
    let start = Instant::now();
    let report = check_kmc_with(&system, &options).expect("a well-formed system");
    let seconds = start.elapsed().as_secs_f64();
    format!(
        "{family} {n} {k} {} {} {seconds:.4} {} {}",
        report.configurations,
        report.transitions,
        peak_rss_kb().unwrap_or(0),
        report.is_kmc()
    )
}

/// A measured point.
struct Point {
    family: Family,
    n: usize,
    seconds: f64,
    peak_mb: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [family, n] = &args[..] {
        let family: Family = family.parse().expect("a family name");
        let n: usize = n.parse().expect("a size");
        println!("{}", measure(family, n));
        return;
    }
    let me = std::env::current_exe().expect("the example's own path");
    println!("family n k configurations transitions seconds peak_kB k-MC");
    let mut points = Vec::new();
    for family in [
        Family::Ring,
        Family::NestedChoice,
        Family::KBuffering,
        Family::Stream,
    ] {
        for &n in sizes(family) {
            let out = Command::new(&me)
                .args([family.name(), &n.to_string()])
                .output()
                .expect("the example runs itself");
            let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
            println!("{line}");
            let fields: Vec<&str> = line.split_whitespace().collect();
            if let [_, _, _, _, _, seconds, kb, _] = fields[..] {
                points.push(Point {
                    family,
                    n,
                    seconds: seconds.parse().unwrap_or(0.0),
                    peak_mb: kb.parse::<f64>().unwrap_or(0.0) / 1024.0,
                });
            }
        }
    }
    let svg = plot(&points);
    std::fs::write("kmc_scaling.svg", svg).expect("kmc_scaling.svg is writable");
    println!("wrote kmc_scaling.svg");
}

/// Two panels side by side, time and peak memory against `n / n_max` of each family
/// (log scales), one line per family.
fn plot(points: &[Point]) -> String {
    let (w, h, pad) = (420.0, 300.0, 50.0);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="11">"#,
        2.0 * w + 20.0,
        h + 40.0
    );
    svg.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    let colours = [
        (Family::Ring, "#1f77b4"),
        (Family::NestedChoice, "#d62728"),
        (Family::KBuffering, "#2ca02c"),
        (Family::Stream, "#9467bd"),
    ];
    type Value = fn(&Point) -> f64;
    let panels: [(&str, Value); 2] = [
        ("wall time (s)", |p| p.seconds),
        ("peak RSS (MB)", |p| p.peak_mb),
    ];
    for (i, (title, value)) in panels.iter().enumerate() {
        let x0 = i as f64 * (w + 20.0);
        let values: Vec<f64> = points.iter().map(value).filter(|v| *v > 0.0).collect();
        let lo = values.iter().copied().fold(f64::MAX, f64::min).max(1e-4);
        let hi = values
            .iter()
            .copied()
            .fold(f64::MIN, f64::max)
            .max(lo * 10.0);
        let (llo, lhi) = (lo.log10().floor(), hi.log10().ceil());
        let y =
            |v: f64| h - pad + 10.0 - (v.max(lo).log10() - llo) / (lhi - llo) * (h - pad - 10.0);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="14" text-anchor="middle" font-weight="bold">{title} against n / largest n (log)</text>"#,
            x0 + w / 2.0
        );
        let _ = writeln!(
            svg,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{0}" y1="20" x2="{0}" y2="{1}" stroke="black"/>"#,
            x0 + pad,
            h - pad + 10.0,
            x0 + w - 10.0,
            h - pad + 10.0
        );
        let mut decade = llo;
        while decade <= lhi {
            let v = 10f64.powf(decade);
            let _ = writeln!(
                svg,
                r##"<line x1="{}" y1="{y1:.1}" x2="{}" y2="{y1:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{v}</text>"##,
                x0 + pad,
                x0 + w - 10.0,
                x0 + pad - 4.0,
                y(v) + 4.0,
                y1 = y(v)
            );
            decade += 1.0;
        }
        for (f, (family, colour)) in colours.iter().enumerate() {
            let mine: Vec<&Point> = points.iter().filter(|p| p.family == *family).collect();
            let Some(max_n) = mine.iter().map(|p| p.n).max() else {
                continue;
            };
            let x = |n: usize| x0 + pad + (n as f64 / max_n as f64) * (w - pad - 20.0);
            let path: Vec<String> = mine
                .iter()
                .map(|p| format!("{:.1},{:.1}", x(p.n), y(value(p))))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                path.join(" ")
            );
            for p in &mine {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"><title>{} {}: {:.3}</title></circle>"#,
                    x(p.n),
                    y(value(p)),
                    family,
                    p.n,
                    value(p)
                );
            }
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" fill="{colour}">{family} (n ≤ {max_n})</text>"#,
                x0 + pad + 10.0,
                34.0 + 14.0 * f as f64
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}
