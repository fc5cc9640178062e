//! Writing the evaluation: `results.json`, `EVALUATION.md` (tables, goals, the paper's
//! numbers beside ours as ratios, the machine and the command) and SVG plots.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::drive::Implementation;
use crate::experiments::{Point, Results, ServingResults};
use crate::svg::{Axes, Line, chart};

/// The machine a run happened on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    /// Available cores (`available_parallelism`, as `nproc`).
    pub nproc: usize,
    /// The CPU model (`/proc/cpuinfo`).
    pub cpu_model: String,
    /// `/proc/loadavg`'s first three fields when this was taken.
    pub load_average: String,
}

impl Machine {
    /// The machine as it is now.
    pub fn now() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')))
            .map_or("unknown".to_string(), |(_, m)| m.trim().to_string());
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        Machine {
            nproc: std::thread::available_parallelism().map_or(0, |n| n.get()),
            cpu_model,
            load_average: load
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// How the results were produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// The command line.
    pub command: String,
    /// Wall time of the whole evaluation (seconds).
    pub wall_seconds: f64,
    /// The load average when the run started.
    pub load_before: String,
    /// The machine when the run ended (its load average then).
    pub machine: Machine,
}

/// A goal of issue 13 and whether it was met.
#[derive(Clone, Debug, Serialize)]
pub struct Goal {
    /// What is asked.
    pub goal: String,
    /// The measured value.
    pub measured: f64,
    /// The threshold.
    pub target: f64,
    /// Whether `measured` reaches `target`.
    pub met: bool,
}

/// The goals, evaluated on `r`.
pub fn goals(r: &Results) -> Vec<Goal> {
    let ms = &r.model_serving;
    let p = &r.producers;
    let s = &r.concurrent_send;
    let goal = |goal: &str, measured: f64, target: f64| Goal {
        goal: goal.to_string(),
        measured,
        target,
        met: measured >= target,
    };
    vec![
        goal(
            "model serving: out-of-order / in-order max throughput >= 2.3",
            ms.out_of_order_max_rps / ms.in_order_max_rps,
            2.3,
        ),
        goal(
            "model serving: out-of-order / actors max throughput >= 0.95",
            ms.out_of_order_max_rps / ms.actors_max_rps,
            0.95,
        ),
        goal(
            "producers: out-of-order / in-order saturation rate >= 2",
            p.out_of_order_saturation_rps / p.in_order_saturation_rps,
            2.0,
        ),
        goal(
            "concurrent send: key median reduction vs in order >= 25%",
            1.0 - s.out_of_order_key_median_ms / s.in_order_key_median_ms,
            0.25,
        ),
        goal(
            "concurrent send: actors / out-of-order key median >= 1 (out of order no slower)",
            s.actors_key_median_ms / s.out_of_order_key_median_ms,
            1.0,
        ),
    ]
}

const COLORS: [(Implementation, &str, &str); 3] = [
    (Implementation::InOrder, "#d62728", "in-order choreography"),
    (
        Implementation::OutOfOrder,
        "#1f77b4",
        "out-of-order choreography",
    ),
    (Implementation::Actors, "#2ca02c", "ractor actors"),
];

fn series(
    points: &[Point],
    imp: Implementation,
    f: impl Fn(&Point) -> (f64, f64),
) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter(|p| p.implementation == imp)
        .map(f)
        .collect()
}

fn latency_chart(title: &str, x: &str, points: &[Point]) -> String {
    let mut lines = Vec::new();
    for (imp, color, name) in COLORS {
        lines.push(Line {
            name: format!("{} median", imp.name()),
            color,
            points: series(points, imp, |p| {
                (p.summary.offered_rps, p.summary.median_ms)
            }),
            dashed: false,
        });
        lines.push(Line {
            name: format!("{} p99", imp.name()),
            color,
            points: series(points, imp, |p| (p.summary.offered_rps, p.summary.p99_ms)),
            dashed: true,
        });
        let _ = name;
    }
    chart(
        &Axes {
            title,
            x,
            y: "latency (ms, log scale)",
            log_y: true,
        },
        &lines,
    )
}

fn throughput_chart(ms: &ServingResults) -> String {
    let mut lines: Vec<Line> = COLORS
        .iter()
        .map(|&(imp, color, name)| Line {
            name: name.to_string(),
            color,
            points: series(&ms.points, imp, |p| {
                (p.summary.offered_rps, p.summary.throughput_rps)
            }),
            dashed: false,
        })
        .collect();
    let max_x = ms
        .points
        .iter()
        .map(|p| p.summary.offered_rps)
        .fold(0.0, f64::max);
    lines.push(Line {
        name: "models' maximum".to_string(),
        color: "#555",
        points: vec![(0.0, ms.models_limit_rps), (max_x, ms.models_limit_rps)],
        dashed: true,
    });
    let title = format!("Model serving, batch {}: throughput", ms.batch);
    let axes = Axes {
        title: &title,
        x: "offered load (images/s)",
        y: "throughput (images/s)",
        log_y: false,
    };
    chart(&axes, &lines)
}

fn histogram_chart(r: &Results) -> String {
    let s = &r.concurrent_send;
    let mut lines = Vec::new();
    for (which, points, dashed) in [("key", &s.key, false), ("txt", &s.txt, true)] {
        for &(imp, color, _) in &COLORS {
            let Some(p) = points.iter().find(|p| p.implementation == imp) else {
                continue;
            };
            let total = p.summary.buckets.iter().map(|b| b.1).sum::<u64>().max(1) as f64;
            let pts = p.summary.buckets.iter().filter(|b| b.0.is_finite());
            lines.push(Line {
                name: format!("{which} {}", imp.name()),
                color,
                points: pts
                    .map(|b| (b.0 - 0.25, 100.0 * b.1 as f64 / total))
                    .collect(),
                dashed,
            });
        }
    }
    let title = format!("Concurrent send at {} req/s: latency at the client", s.rate);
    let axes = Axes {
        title: &title,
        x: "latency (ms, 0.5 ms buckets)",
        y: "% of requests",
        log_y: false,
    };
    chart(&axes, &lines)
}

fn table(out: &mut String, points: &[Point], throughput: bool) {
    let _ = writeln!(
        out,
        "| offered (req/s) | implementation | median (ms) | p99 (ms) |{} answered |",
        if throughput {
            " throughput (req/s) |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "|---:|---|---:|---:|{}---:|",
        if throughput { "---:|" } else { "" }
    );
    for p in points {
        let s = &p.summary;
        let tp = if throughput {
            format!(" {:.1} |", s.throughput_rps)
        } else {
            String::new()
        };
        let failed = if p.failures > 0 {
            format!(" ({} failed)", p.failures)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {:.0} | {} | {:.2} | {:.2} |{tp} {}/{}{failed} |",
            s.offered_rps,
            p.implementation.name(),
            s.median_ms,
            s.p99_ms,
            s.answered,
            s.requests
        );
    }
}

/// Writes `results.json`, `EVALUATION.md` and the plots into `dir`.
pub fn write(dir: &Path, r: &Results, run: &Run) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let goals = goals(r);
    // The impaired-links results come from their own run (`--impaired`): kept.
    let impaired = crate::impaired::report::existing(dir);
    let mut json = serde_json::to_value(r).map_err(io::Error::other)?;
    if let Some(map) = json.as_object_mut() {
        if let Some(links) = &impaired {
            map.insert(crate::impaired::report::KEY.into(), links.clone());
        }
        map.insert(
            "goals".into(),
            serde_json::to_value(&goals).map_err(io::Error::other)?,
        );
        map.insert(
            "run".into(),
            serde_json::to_value(run).map_err(io::Error::other)?,
        );
    }
    let text = serde_json::to_string_pretty(&json).map_err(io::Error::other)?;
    std::fs::write(dir.join("results.json"), text + "\n")?;
    let p = &r.producers.points;
    let chart_p = latency_chart(
        "Concurrent producers: response latency",
        "requests/s per producer",
        p,
    );
    std::fs::write(dir.join("producers_latency.svg"), chart_p)?;
    std::fs::write(
        dir.join("concurrent_send_histogram.svg"),
        histogram_chart(r),
    )?;
    for ms in std::iter::once(&r.model_serving).chain(&r.model_serving_other_batches) {
        let b = ms.batch;
        std::fs::write(
            dir.join(format!("model_serving_throughput_b{b}.svg")),
            throughput_chart(ms),
        )?;
        let title = format!("Model serving, batch {b}: latency");
        let chart_l = latency_chart(&title, "offered load (images/s)", &ms.points);
        std::fs::write(dir.join(format!("model_serving_latency_b{b}.svg")), chart_l)?;
    }
    let profiles = crate::why::Profiles::read(&dir.join("profile"));
    let mut text = crate::markdown::render(r, run, &goals, &profiles);
    if let Some(links) = impaired.and_then(|l| serde_json::from_value(l).ok()) {
        text.push_str(&crate::impaired::report::section(dir, &links)?);
    }
    std::fs::write(dir.join("EVALUATION.md"), text)?;
    Ok(())
}

/// Whether `dir/results.json` holds a whole evaluation (its `run`), so that the report
/// can be rendered from it.
pub fn has_run(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("results.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|j| j.get("run").is_some())
}

/// Appends one table of runs (used by the markdown renderer).
pub fn runs_table(out: &mut String, points: &[Point], throughput: bool) {
    table(out, points, throughput);
}
