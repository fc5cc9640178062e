//! How k-MC's time and memory grow with the size `n` of each benchmark family (ring,
//! nested choice, k-buffering, stream): each size is checked in a child process of its
//! own, so that its peak resident memory (`VmHWM`, Linux) is its alone.
//!
//! ```sh
//! cargo run --release -p mpst-fsm --example kmc_scaling            # table + kmc_scaling.svg
//! cargo run --release -p mpst-fsm --example kmc_scaling -- ring 1000   # one size
//! cargo run --release -p mpst-fsm --example kmc_scaling -- dot         # DOT reading, 1 to 100 MB
//! cargo run --release -p mpst-fsm --example kmc_scaling -- plot TABLE  # redraw from a table
//! ```
//!
//! Each line gives the family, `n`, the bound `k` (the least one the family needs:
//! `max(1, ⌈n/2⌉)` for stream and k-buffering, 1 for the others), the configurations
//! and transitions explored, the wall time of `check_kmc` and the process's peak RSS
//! from just before the check (the machines included, the generator's peak not).
//! A measurement, not a test: wall time depends on the load.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use mpst_fsm::families::Family;
use mpst_fsm::kmc::{KmcOptions, check_kmc_with};

/// The sizes measured per family, up to the largest each family accepts.
fn sizes(family: Family) -> &'static [usize] {
    match family {
        Family::Ring => &[100, 200, 400, 600, 800, 1000, 2000, 3000],
        Family::NestedChoice => &[3, 4, 5, 6, 7, 8],
        Family::Stream | Family::KBuffering => &[1000, 3000, 10_000, 30_000, 100_000],
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
    // The generator's own peak (nested choice builds its local types first) is not
    // the check's: reset the peak to what is resident now, the system included.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
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

/// Reads a DOT text of about `bytes` bytes: the stream source with that many unrolled
/// sends, one digraph (`one`), or the same text cut into digraphs of about 10 kB
/// (`many`). Prints `shape bytes seconds peak_kB` (the peak includes the text).
fn measure_dot(shape: &str, bytes: usize) -> String {
    use mpst_fsm::format::{parse_dot_nondeterministic, write_dot};
    // About 75 bytes of DOT per unrolled send (two states and two edges).
    let one = write_dot(&mpst_fsm::families::stream(bytes / 75).optimised[0]);
    let text = if shape == "many" {
        let piece = write_dot(&mpst_fsm::families::stream(300).optimised[0]);
        (0..one.len() / piece.len())
            .map(|i| piece.replacen("digraph s", &format!("digraph s{i}"), 1))
            .collect()
    } else {
        one
    };
    let start = Instant::now();
    let machines = parse_dot_nondeterministic(&text)
        .expect("generated DOT")
        .len();
    let seconds = start.elapsed().as_secs_f64();
    assert!(machines >= 1);
    format!(
        "{shape} {} {seconds:.4} {}",
        text.len(),
        peak_rss_kb().unwrap_or(0)
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [plot_cmd, table] = &args[..] {
        if plot_cmd == "plot" {
            // Redraw from a table this example printed.
            let text = std::fs::read_to_string(table).expect("a readable table");
            let points: Vec<Point> = text.lines().filter_map(point).collect();
            std::fs::write("kmc_scaling.svg", plot(&points)).expect("writable");
            println!("wrote kmc_scaling.svg from {} points", points.len());
            return;
        }
    }
    if let [dot, shape, bytes] = &args[..] {
        if dot == "dot" {
            println!("{}", measure_dot(shape, bytes.parse().expect("a size")));
            return;
        }
    }
    if args.first().map(String::as_str) == Some("dot") {
        let me = std::env::current_exe().expect("the example's own path");
        println!("shape bytes seconds peak_kB");
        for shape in ["one", "many"] {
            for bytes in [1_000_000usize, 10_000_000, 100_000_000] {
                let out = Command::new(&me)
                    .args(["dot", shape, &bytes.to_string()])
                    .output()
                    .expect("the example runs itself");
                println!("{}", String::from_utf8_lossy(&out.stdout).trim());
            }
        }
        return;
    }
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
            points.extend(point(&line));
        }
    }
    let svg = plot(&points);
    std::fs::write("kmc_scaling.svg", svg).expect("kmc_scaling.svg is writable");
    println!("wrote kmc_scaling.svg");
}

/// A measured line `family n k configurations transitions seconds peak_kB k-MC`.
fn point(line: &str) -> Option<Point> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [family, n, _, _, _, seconds, kb, _] = fields[..] else {
        return None;
    };
    Some(Point {
        family: family.parse().ok()?,
        n: n.parse().ok()?,
        seconds: seconds.parse().ok()?,
        peak_mb: kb.parse::<f64>().ok()? / 1024.0,
    })
}

/// One panel per family and measure (time on top, peak memory below), both axes
/// logarithmic, with the measured points joined.
fn plot(points: &[Point]) -> String {
    let (w, h, pad) = (230.0, 190.0, 45.0);
    let families = [
        Family::Ring,
        Family::NestedChoice,
        Family::KBuffering,
        Family::Stream,
    ];
    type Value = fn(&Point) -> f64;
    let rows: [(&str, Value, &str); 2] = [
        ("s", |p| p.seconds, "#1f77b4"),
        ("MiB", |p| p.peak_mb, "#d62728"),
    ];
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="10">"#,
        4.0 * w,
        2.0 * h
    );
    svg.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let log = |v: f64| v.max(1e-4).log10();
    for (c, family) in families.iter().enumerate() {
        let mine: Vec<&Point> = points.iter().filter(|p| p.family == *family).collect();
        if mine.is_empty() {
            continue;
        }
        let (nlo, nhi) = (
            log(mine.iter().map(|p| p.n).min().unwrap_or(1) as f64),
            log(mine.iter().map(|p| p.n).max().unwrap_or(1) as f64),
        );
        for (r, (unit, value, colour)) in rows.iter().enumerate() {
            let (x0, y0) = (c as f64 * w, r as f64 * h);
            let vs: Vec<f64> = mine.iter().map(|p| log(value(p))).collect();
            let lo = vs.iter().copied().fold(f64::MAX, f64::min).floor();
            let hi = vs
                .iter()
                .copied()
                .fold(f64::MIN, f64::max)
                .ceil()
                .max(lo + 1.0);
            let x = |n: usize| {
                x0 + pad + (log(n as f64) - nlo) / (nhi - nlo).max(1e-9) * (w - pad - 15.0)
            };
            let y = |v: f64| y0 + h - 30.0 - (log(v) - lo) / (hi - lo) * (h - 55.0);
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{family}: {}</text>"#,
                x0 + w / 2.0,
                y0 + 14.0,
                if r == 0 {
                    "check time (s)"
                } else {
                    "peak RSS (MiB)"
                }
            );
            let _ = writeln!(
                svg,
                r#"<polyline points="{},{} {},{} {},{}" fill="none" stroke="black"/>"#,
                x0 + pad,
                y0 + 20.0,
                x0 + pad,
                y0 + h - 30.0,
                x0 + w - 10.0,
                y0 + h - 30.0
            );
            let mut d = lo;
            while d <= hi {
                let v = 10f64.powf(d);
                let _ = writeln!(
                    svg,
                    r##"<line x1="{}" y1="{yy:.1}" x2="{}" y2="{yy:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{v} {unit}</text>"##,
                    x0 + pad,
                    x0 + w - 10.0,
                    x0 + pad - 3.0,
                    y(v) + 3.0,
                    yy = y(v)
                );
                d += 1.0;
            }
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
                    r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{colour}"><title>{family} {}: {:.4} {unit}</title></circle><text x="{0:.1}" y="{}" text-anchor="middle" font-size="8">{2}</text>"#,
                    x(p.n),
                    y(value(p)),
                    p.n,
                    value(p),
                    y0 + h - 19.0
                );
            }
        }
    }
    svg.push_str("</svg>\n");
    svg
}
