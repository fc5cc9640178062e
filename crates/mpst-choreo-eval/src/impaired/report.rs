//! The impaired links in `evaluation/`: `impaired_links` merged into `results.json`
//! (its other keys untouched), the runs' details in `impaired_links.json`, two SVG plots
//! against delay and the section of `EVALUATION.md`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Links, Measured};
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
fn against_delay(
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

/// A goal about the impaired runs and whether it holds.
struct Verdict {
    goal: &'static str,
    met: bool,
    measured: String,
}

fn verdicts(links: &Links) -> Vec<Verdict> {
    let key = |imp| against_delay(links, imp, |c| c.key_median_ms);
    let sat = |imp| against_delay(links, imp, |c| c.saturation_rps);
    let (ko, ka, ki) = (
        key(Implementation::OutOfOrder),
        key(Implementation::Actors),
        key(Implementation::InOrder),
    );
    let (so, sa, si) = (
        sat(Implementation::OutOfOrder),
        sat(Implementation::Actors),
        sat(Implementation::InOrder),
    );
    let list = |v: &[(f64, f64)], unit: &str| {
        v.iter()
            .map(|(d, x)| format!("{d:.0} ms: {x:.2}{unit}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let zip = |a: &[(f64, f64)], b: &[(f64, f64)], f: fn(f64, f64) -> f64| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x.0, f(x.1, y.1)))
            .collect::<Vec<_>>()
    };
    let key_vs_actors = zip(&ko, &ka, |o, a| o / a);
    let sat_vs_actors = zip(&so, &sa, |o, a| o / a);
    let key_gain = zip(&ki, &ko, |i, o| i - o);
    let sat_gain = zip(&so, &si, |o, i| o / i);
    let growing = |v: &[(f64, f64)]| v.len() > 1 && v.windows(2).all(|w| w[1].1 > w[0].1);
    vec![
        Verdict {
            goal: "out of order at least as fast as the actors at every delay: key median \
                   (out of order / actors <= 1)",
            met: !key_vs_actors.is_empty() && key_vs_actors.iter().all(|r| r.1 <= 1.0),
            measured: list(&key_vs_actors, "×"),
        },
        Verdict {
            goal: "out of order at least as fast as the actors at every delay: saturation \
                   (out of order / actors >= 1)",
            met: !sat_vs_actors.is_empty() && sat_vs_actors.iter().all(|r| r.1 >= 1.0),
            measured: list(&sat_vs_actors, "×"),
        },
        Verdict {
            goal: "the advantage over in order grows with delay: key median, in order minus \
                   out of order",
            met: growing(&key_gain),
            measured: list(&key_gain, " ms"),
        },
        Verdict {
            goal: "the advantage over in order grows with delay: saturation, out of order / \
                   in order",
            met: growing(&sat_gain),
            measured: list(&sat_gain, "×"),
        },
    ]
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
    let _ = writeln!(out, "| goal | measured | met |\n|---|---|---|");
    let verdicts = verdicts(links);
    for v in &verdicts {
        let met = if v.met { "yes" } else { "**no**" };
        let _ = writeln!(out, "| {} | {} | {met} |", v.goal, v.measured);
    }
    let missed: Vec<&str> = verdicts.iter().filter(|v| !v.met).map(|v| v.goal).collect();
    if missed.is_empty() {
        out.push_str(
            "\n**The goal holds in this run**: the out-of-order choreography is at least as \
             fast as the actors at every delay, and its advantage over in order grows with \
             the delay.\n",
        );
    } else {
        let _ = writeln!(
            out,
            "\n**The goal is missed in this run** on: {}.",
            missed.join("; ")
        );
    }
    out.push_str(super::report_text::READING);
    if let Some(d) = &details {
        out.push_str(&key_in_numbers(links, d));
        out.push_str(&key_against_actors(dir, links, d));
    }
    if let Some(d) = &details {
        let _ = writeln!(out, "\nEvery run (`{DETAILS}`):\n");
        let _ = writeln!(
            out,
            "| delay (ms) | benchmark | implementation | offered (/s) | median (ms) | p99 (ms) | throughput (/s) | answered |"
        );
        let _ = writeln!(out, "|---:|---|---|---:|---:|---:|---:|---:|");
        for m in &d.runs {
            let s = &m.summary;
            let failed = if m.failures > 0 {
                format!(" ({} failed)", m.failures)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {}/{}{failed} |",
                m.delay_ms,
                m.benchmark,
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

/// The plan a details file was made with, as far as the cost model needs it (the
/// concurrent send's seed, rate, duration and the links' jitter).
fn plan_of(d: &Details) -> Option<super::Plan> {
    let plan = d.plan.as_object()?;
    let mut p = super::Plan::full(plan.get("seed")?.as_u64()?);
    p.send_rate = plan.get("send_rate")?.as_f64()?;
    p.send_duration = plan.get("send_duration")?.as_f64()?;
    p.jitter = d.jitter;
    Some(p)
}

/// Concurrent send's key in numbers: what the cost model expects in order's key to lose
/// at each delay ([`super::model`]) beside what the runs measured, and why it cannot grow.
fn key_in_numbers(links: &Links, d: &Details) -> String {
    let (key, max) = d.send_cost_medians_ms;
    let key_of = |imp| against_delay(links, imp, |c| c.key_median_ms);
    let (ko, ki) = (
        key_of(Implementation::OutOfOrder),
        key_of(Implementation::InOrder),
    );
    let plan = plan_of(d);
    let model: Vec<f64> = ko
        .iter()
        .map(|o| {
            plan.as_ref()
                .map_or(max - key, |p| p.send_key_advantage_ms(o.0))
        })
        .collect();
    let rows: Vec<String> = ko
        .iter()
        .zip(&ki)
        .zip(&model)
        .map(|((o, i), expected)| {
            format!(
                "{:.0} ms: model {expected:.2} ms, measured {:.2} ms",
                o.0,
                i.1 - o.1
            )
        })
        .collect();
    let jitter_adds = model.last().zip(model.first()).map_or(0.0, |(l, f)| l - f);
    let ka = key_of(Implementation::Actors);
    let noise = ko
        .iter()
        .zip(&ka)
        .map(|(o, a)| (o.1 - a.1).abs())
        .fold(0.0, f64::max);
    format!(
        "\nConcurrent send's key in numbers. Out of order, `s` forwards the key as it \
         arrives: the key takes the key service's cost *k* and two links (`ks` → `s` → \
         `c`). In order, `s` takes the key, then the text, then forwards the key: the key \
         takes max(*k* + link `ks` → `s`, *t* + link `cs` → `s`) + link `s` → `c`, with *t* \
         the content service's cost. The text it waits for crosses one link, as the key \
         does, so **the delay cancels out of the difference and the key's advantage cannot \
         grow with the delay in this choreography**: it is the costs' difference (over the \
         measured sessions the key service's cost has a median of {key:.2} ms and the \
         slower of the two services {max:.2} ms: {:.2} ms on a perfect link), moved a \
         little by the jitter (every link uniform in delay ± {:.0} %, drawn per message, \
         which widens both forms' medians). The cost model with those draws \
         (`impaired/model.rs`, {} link draws per session) against the runs, in order \
         minus out of order, key medians: {}. The delay itself cancels; the jitter, which \
         scales with it, adds {jitter_adds:.2} ms at the largest delay in the model, less \
         than these medians move from run to run (out of order and the actors, whose paths \
         are the same, differ by up to {noise:.2} ms here), so the runs can neither show \
         nor refute it. What would grow is a choreography whose in-order key waits behind \
         a message that crosses more links than the key (one delay per extra link); here \
         the growing advantage is model serving's, whose in-order cycle crosses five links \
         per batch (above).\n",
        max - key,
        d.jitter * 100.0,
        super::model::DRAWS,
        rows.join("; "),
    )
}

/// When out of order's key is slower than the actors' somewhere: where, by
/// how much, and the per-hop overhead measured in memory (results.json's closed-loop
/// profile of concurrent send) that the missing delay leaves uncovered.
fn key_against_actors(dir: &Path, links: &Links, d: &Details) -> String {
    let key_of = |imp| against_delay(links, imp, |c| c.key_median_ms);
    let (ko, ka) = (
        key_of(Implementation::OutOfOrder),
        key_of(Implementation::Actors),
    );
    let slower: Vec<String> = ko
        .iter()
        .zip(&ka)
        .filter(|(o, a)| o.1 > a.1)
        .map(|(o, a)| {
            format!(
                "at {:.0} ms by {:.2} ms ({:.2} against {:.2})",
                o.0,
                o.1 - a.1,
                o.1,
                a.1
            )
        })
        .collect();
    if slower.is_empty() {
        return String::new();
    }
    let profile = std::fs::read_to_string(dir.join("results.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|j| j.pointer("/concurrent_send/closed_loop").cloned());
    let us = |imp: Implementation| {
        profile.as_ref()?.as_array()?.iter().find_map(|p| {
            (p.get("implementation")?.as_str()? == imp.name())
                .then(|| p.get("key_median_us")?.as_f64())?
        })
    };
    let memory = match (us(Implementation::OutOfOrder), us(Implementation::Actors)) {
        (Some(o), Some(a)) => format!(
            " In memory, one session at a time (the closed-loop profile above), the key \
             takes {o:.0} µs out of order against {a:.0} µs with the actors."
        ),
        _ => String::new(),
    };
    format!(
        "\nOut of order against the actors on the key: slower {}. With little \
         or no delay to overlap, what is left is each implementation's own cost per hop: \
         the choreography routes every value through its endpoint (a keyed mailbox, an \
         envelope carrying its integrity key, a transport task per lane), where an actor \
         writes a bare frame.{memory} On this machine (2 cores, load average {} when the \
         runs started) every extra wake-up also waits for a core. The hops on the bed are \
         not profiled, so how that gap divides between them is not measured; as the delay \
         grows it is lost in the noise (the ratios in the goals table).\n",
        slower.join(", "),
        d.load_before
    )
}
