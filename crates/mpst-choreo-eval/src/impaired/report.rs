//! The impaired links in `evaluation/`: `impaired_links` merged into `results.json`
//! (its other keys untouched), the runs' details in `impaired_links.json`, two SVG plots
//! against delay and the section of `EVALUATION.md`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Comparison, Links, Measured};
use crate::drive::Implementation;
use crate::svg::{Axes, Line, chart};

/// The key of the summary in `results.json`.
pub const KEY: &str = "impaired_links";
/// The file with the runs' details, beside `results.json`.
pub const DETAILS: &str = "impaired_links.json";

/// How the impaired runs were made, and every run (`impaired_links.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Details {
    /// The command line.
    pub command: String,
    /// Wall time (seconds).
    pub wall_seconds: f64,
    /// `/proc/loadavg` (1, 5, 15 min) when the runs started.
    pub load_before: String,
    /// And when they ended.
    pub load_after: String,
    /// The plan, as run.
    pub plan: serde_json::Value,
    /// The plan in words.
    #[serde(default)]
    pub plan_text: String,
    /// Each link's jitter as a fraction of its delay.
    #[serde(default)]
    pub jitter: f64,
    /// [`super::Plan::send_cost_medians`]: the key service's cost and the larger of
    /// the two costs, medians over the measured sessions (ms).
    #[serde(default)]
    pub send_cost_medians_ms: (f64, f64),
    /// Every run.
    pub runs: Vec<Measured>,
    /// The key's comparisons with their intervals ([`super::compare`]).
    #[serde(default)]
    pub comparisons: Vec<Comparison>,
}

/// The `impaired_links` object of `dir/results.json`, if there is one.
pub fn existing(dir: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("results.json")).ok()?;
    let mut json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.as_object_mut()?.remove(KEY)
}

/// Sets `impaired_links` in `dir/results.json` to `links`, every other key as it was
/// (a new file with only that key when there is none); writes `details` beside it.
pub fn merge(dir: &Path, links: &Links, details: &Details) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("results.json");
    let mut json = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| io::Error::other(format!("{} is not JSON: {e}", path.display())))?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => serde_json::json!({}),
        Err(e) => return Err(e),
    };
    let map = json
        .as_object_mut()
        .ok_or_else(|| io::Error::other(format!("{} is not an object", path.display())))?;
    map.insert(
        KEY.into(),
        serde_json::to_value(links).map_err(io::Error::other)?,
    );
    let text = serde_json::to_string_pretty(&json).map_err(io::Error::other)?;
    std::fs::write(&path, text + "\n")?;
    let text = serde_json::to_string_pretty(details).map_err(io::Error::other)?;
    std::fs::write(dir.join(DETAILS), text + "\n")
}

const COLORS: [(Implementation, &str); 3] = [
    (Implementation::InOrder, "#d62728"),
    (Implementation::OutOfOrder, "#1f77b4"),
    (Implementation::Actors, "#2ca02c"),
];

/// One implementation's values against delay, in increasing delay.
pub(super) fn against_delay(
    links: &Links,
    imp: Implementation,
    f: fn(&super::Cell) -> f64,
) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = links
        .iter()
        .filter_map(|(delay, cells)| Some((delay.parse().ok()?, f(cells.get(imp.name())?))))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points
}

fn plot(links: &Links, title: &str, y: &str, f: fn(&super::Cell) -> f64) -> String {
    let lines: Vec<Line> = COLORS
        .iter()
        .map(|&(imp, color)| Line {
            name: imp.name().to_string(),
            color,
            points: against_delay(links, imp, f),
            dashed: false,
        })
        .collect();
    let axes = Axes {
        title,
        x: "one-way delay of every link (ms, ± 10 % jitter)",
        y,
        log_y: false,
    };
    chart(&axes, &lines)
}

/// Writes the plots of `links` into `dir` and returns the section of `EVALUATION.md`.
pub fn section(dir: &Path, links: &Links) -> io::Result<String> {
    let key = plot(
        links,
        "Concurrent send across hosts: key median",
        "key median at the client (ms)",
        |c| c.key_median_ms,
    );
    std::fs::write(dir.join("impaired_key_median.svg"), key)?;
    let sat = plot(
        links,
        "Model serving across hosts: saturation",
        "highest throughput (images/s)",
        |c| c.saturation_rps,
    );
    std::fs::write(dir.join("impaired_saturation.svg"), sat)?;
    let details: Option<Details> = std::fs::read_to_string(dir.join(DETAILS))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let mut out = String::new();
    let _ = writeln!(out, "\n## On impaired links: every role on its own host\n");
    out.push_str(super::report_text::DESIGN);
    if let Some(d) = &details {
        let _ = writeln!(
            out,
            "\nMade by `{}` in {:.0} s on this shared machine (2 cores), load average \
             (1, 5, 15 min) {} before and {} after: {}.\n",
            d.command, d.wall_seconds, d.load_before, d.load_after, d.plan_text
        );
    }
    let _ = writeln!(
        out,
        "| delay (ms) | implementation | key median (ms) | saturation (images/s) |"
    );
    let _ = writeln!(out, "|---:|---|---:|---:|");
    let mut delays: Vec<(&String, _)> = links.iter().collect();
    delays.sort_by_key(|(d, _)| d.parse::<u64>().unwrap_or(u64::MAX));
    for (delay, cells) in delays {
        for (imp, _) in COLORS {
            if let Some(c) = cells.get(imp.name()) {
                let _ = writeln!(
                    out,
                    "| {delay} | {} | {:.2} | {:.1} |",
                    imp.name(),
                    c.key_median_ms,
                    c.saturation_rps
                );
            }
        }
    }
    out.push_str("\n![key median against delay](impaired_key_median.svg)\n");
    out.push_str("![saturation against delay](impaired_saturation.svg)\n\n");
    out.push_str(
        "Where lines coincide (out of order and the actors at the models' limit), the one \
         drawn last hides the others: the table has every value.\n\n",
    );
    let comparisons = details.as_ref().map_or(&[][..], |d| &d.comparisons[..]);
    let step = details.as_ref().and_then(saturation_step);
    out.push_str(&super::goals::table(links, comparisons, step));
    out.push_str(super::report_text::READING);
    if let Some(d) = &details {
        out.push_str(&super::key_text::in_numbers(links, d));
        out.push_str(&super::key_text::against_actors(dir, d));
    }
    if let Some(d) = &details {
        let _ = writeln!(out, "\nEvery run (`{DETAILS}`):\n");
        let _ = writeln!(
            out,
            "| delay (ms) | benchmark | round | implementation | offered (/s) | median (ms) | p99 (ms) | throughput (/s) | answered |"
        );
        let _ = writeln!(out, "|---:|---|---:|---|---:|---:|---:|---:|---:|");
        for m in &d.runs {
            let s = &m.summary;
            let failed = if m.failures > 0 {
                format!(" ({} failed)", m.failures)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {}/{}{failed} |",
                m.delay_ms,
                m.benchmark,
                m.round,
                m.implementation.name(),
                s.offered_rps,
                s.median_ms,
                s.p99_ms,
                s.throughput_rps,
                s.answered,
                s.requests
            );
        }
    }
    Ok(out)
}

/// Model serving's throughput resolution in the run of `d`: one batch within the
/// measurement window (the run after its 20 % warm-up), in images per second.
fn saturation_step(d: &Details) -> Option<f64> {
    let plan = d.plan.as_object()?;
    let batch = plan.get("costs")?.get("batch")?.as_f64()?;
    let duration = plan.get("serving_duration")?.as_f64()?;
    (duration > 0.0).then(|| batch / (0.8 * duration))
}
