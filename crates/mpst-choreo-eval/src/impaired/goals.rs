//! The impaired-links goals and what the runs allow one to say of each: met, missed, or
//! (for the key, whose medians carry bootstrap intervals) level within the run's
//! resolution; and the table of the key's comparisons with their intervals.

use std::fmt::Write as _;

use super::report::against_delay;
use super::stats::{Interval, Side, Verdict};
use super::{Cell, Comparison, HOPS, Links, SEND};
use crate::drive::Implementation;

/// A goal about the impaired runs and what the runs say of it.
pub(super) struct Goal {
    pub(super) goal: &'static str,
    pub(super) verdict: Verdict,
    pub(super) measured: String,
}

/// "out of order / actors <= 1" at one delay, from its interval.
fn at_most_one(ratio: &Interval) -> Verdict {
    match ratio.against(1.0) {
        Side::AtOrBelow => Verdict::Met,
        Side::Above => Verdict::Missed,
        Side::Across => Verdict::Level,
    }
}

/// How far the ratio of two runs of one implementation plausibly strays from 1 on this
/// bed: the larger distance from 1 of the A/A control's interval ends.
fn resolution(control: &Interval) -> f64 {
    (control.high - 1.0).max(1.0 - control.low).max(0.0)
}

/// Whether `ratio`'s interval reaches no higher above 1 than two runs of the actors
/// plausibly differ ([`resolution`]): out of order is then as fast as the actors as far
/// as the bed can tell (a weaker statement than [`at_most_one`]'s, said apart from it).
fn within_control(ratio: &Interval, control: &Interval) -> bool {
    ratio.high <= 1.0 + resolution(control)
}

/// Whether successive intervals (in increasing delay) grow beyond their resolution:
/// met when each lies wholly above the one before, missed when one lies wholly below
/// the one before, level otherwise.
fn growing(intervals: &[Interval]) -> Verdict {
    if intervals.len() < 2 {
        return Verdict::Missed;
    }
    let pairs = || intervals.windows(2);
    if pairs().all(|w| w[1].low > w[0].high) {
        Verdict::Met
    } else if pairs().any(|w| w[1].high < w[0].low) {
        Verdict::Missed
    } else {
        Verdict::Level
    }
}

/// A verdict from point values alone (no interval): met or missed.
fn point(met: bool) -> Verdict {
    if met { Verdict::Met } else { Verdict::Missed }
}

/// The key comparisons of concurrent send with costs, in increasing delay.
fn send_comparisons(comparisons: &[Comparison]) -> Vec<&Comparison> {
    let mut chosen: Vec<&Comparison> = comparisons.iter().filter(|c| c.benchmark == SEND).collect();
    chosen.sort_by_key(|c| c.delay_ms);
    chosen
}

/// "out of order's saturation >= the actors'" at every delay, where `step` (images/s)
/// is one batch within the measurement window: throughput counts the answers completed
/// in the window, a batch at a time, so a batch finishing just inside or outside either
/// edge moves it by a step; a shortfall of at most two steps is level.
fn at_least(pairs: &[(f64, f64)], step: Option<f64>) -> Verdict {
    let short = |&(o, a): &(f64, f64)| a - o;
    if pairs.is_empty() {
        Verdict::Missed
    } else if pairs.iter().all(|p| short(p) <= 0.0) {
        Verdict::Met
    } else if step.is_some_and(|step| pairs.iter().all(|p| short(p) <= 2.0 * step + 1e-9)) {
        Verdict::Level
    } else {
        Verdict::Missed
    }
}

/// The goals of `links`; the key's verdicts from `comparisons` when there are some
/// (else from the medians alone, met or missed); `step` is model serving's throughput
/// resolution (one batch in the window, images/s), when known.
pub(super) fn goals(links: &Links, comparisons: &[Comparison], step: Option<f64>) -> Vec<Goal> {
    let key = |imp| against_delay(links, imp, |c: &Cell| c.key_median_ms);
    let sat = |imp| against_delay(links, imp, |c: &Cell| c.saturation_rps);
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
    let sat_vs_actors = zip(&so, &sa, |o, a| o / a);
    let sat_pairs: Vec<(f64, f64)> = so.iter().zip(&sa).map(|(o, a)| (o.1, a.1)).collect();
    let resolution = step.map_or(String::new(), |s| {
        format!(" (resolution: a batch in the window, {s:.1} images/s)")
    });
    let sat_gain = zip(&so, &si, |o, i| o / i);
    let increasing = |v: &[(f64, f64)]| v.len() > 1 && v.windows(2).all(|w| w[1].1 > w[0].1);
    let sends = send_comparisons(comparisons);
    let (key_vs_actors, key_gain) = if sends.is_empty() {
        let ratio = zip(&ko, &ka, |o, a| o / a);
        let gain = zip(&ki, &ko, |i, o| i - o);
        (
            (
                point(!ratio.is_empty() && ratio.iter().all(|r| r.1 <= 1.0)),
                list(&ratio, "×"),
            ),
            (point(increasing(&gain)), list(&gain, " ms")),
        )
    } else {
        let shown = |f: fn(&Comparison) -> Interval, digits, unit| {
            sends
                .iter()
                .map(|c| format!("{} ms: {}", c.delay_ms, f(c).show(digits, unit)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let ratio = |c: &Comparison| c.out_of_order_over_actors;
        let gain = |c: &Comparison| c.in_order_minus_out_of_order_ms;
        let worst = sends.iter().map(|c| at_most_one(&ratio(c))).max();
        let gains: Vec<Interval> = sends.iter().map(|c| gain(c)).collect();
        (
            (worst.unwrap_or(Verdict::Missed), shown(ratio, 3, "×")),
            (growing(&gains), shown(gain, 2, " ms")),
        )
    };
    vec![
        Goal {
            goal: "out of order at least as fast as the actors at every delay: key median \
                   (out of order / actors <= 1)",
            verdict: key_vs_actors.0,
            measured: key_vs_actors.1,
        },
        Goal {
            goal: "out of order at least as fast as the actors at every delay: saturation \
                   (out of order / actors >= 1)",
            verdict: at_least(&sat_pairs, step),
            measured: list(&sat_vs_actors, "×") + &resolution,
        },
        Goal {
            goal: "the advantage over in order grows with delay: key median, in order minus \
                   out of order",
            verdict: key_gain.0,
            measured: key_gain.1,
        },
        Goal {
            goal: "the advantage over in order grows with delay: saturation, out of order / \
                   in order",
            verdict: point(increasing(&sat_gain)),
            measured: list(&sat_gain, "×"),
        },
    ]
}

/// The goals table, what it adds up to, and the key's comparisons with their intervals.
pub(super) fn table(links: &Links, comparisons: &[Comparison], step: Option<f64>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| goal | measured | met |\n|---|---|---|");
    let goals = goals(links, comparisons, step);
    for g in &goals {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            g.goal,
            g.measured,
            g.verdict.words()
        );
    }
    let named = |v: Verdict| -> Vec<&str> {
        goals
            .iter()
            .filter(|g| g.verdict == v)
            .map(|g| g.goal)
            .collect()
    };
    let (missed, level) = (named(Verdict::Missed), named(Verdict::Level));
    if missed.is_empty() && level.is_empty() {
        out.push_str(
            "\n**The goal holds in this run**: the out-of-order choreography is at least as \
             fast as the actors at every delay, and its advantage over in order grows with \
             the delay.\n",
        );
    }
    if !missed.is_empty() {
        let _ = writeln!(
            out,
            "\n**The goal is missed in this run** on: {}.",
            missed.join("; ")
        );
    }
    if !level.is_empty() {
        let _ = writeln!(
            out,
            "\n**Level within the run's resolution** (the 95 % interval holds the bound, so \
             the run can tell neither way) on: {}.",
            level.join("; ")
        );
    }
    if comparisons.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\nThe key, session by session (the three implementations run the same sessions \
         with the same seeded costs; medians over every round, 95 % bootstrap intervals \
         over sessions):\n"
    );
    let _ = writeln!(
        out,
        "| delay (ms) | services | sessions each | out of order / actors | out of order − actors (ms) | in order − out of order (ms) | A/A control: actors / actors |\n|---:|---|---:|---:|---:|---:|---:|"
    );
    for c in comparisons {
        let services = if c.benchmark == HOPS {
            "no costs"
        } else {
            "0–5 ms"
        };
        let control = c
            .actors_over_actors
            .map_or("–".to_string(), |a| a.show(3, "×"));
        let _ = writeln!(
            out,
            "| {} | {services} | {} | {} | {} | {} | {control} |",
            c.delay_ms,
            c.sessions,
            c.out_of_order_over_actors.show(3, "×"),
            c.out_of_order_minus_actors_ms.show(3, ""),
            c.in_order_minus_out_of_order_ms.show(2, ""),
        );
    }
    out.push_str(&control_text(comparisons));
    out
}

/// What the A/A control says of the key's comparisons with costs: how far two runs of
/// the actors differ, and whether out of order stays within that at every delay.
fn control_text(comparisons: &[Comparison]) -> String {
    let sends = send_comparisons(comparisons);
    let pairs: Vec<(&Comparison, Interval)> = sends
        .iter()
        .filter_map(|c| c.actors_over_actors.map(|a| (*c, a)))
        .collect();
    if pairs.is_empty() || pairs.len() != sends.len() {
        return String::new();
    }
    let each = |f: &dyn Fn(&Comparison, &Interval) -> String| {
        pairs
            .iter()
            .map(|(c, a)| format!("{} ms: {}", c.delay_ms, f(c, a)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let bounds = each(&|c, a| {
        format!(
            "out of order / actors at most {:.3}× against ±{:.3}",
            c.out_of_order_over_actors.high,
            resolution(a)
        )
    });
    let within = pairs
        .iter()
        .all(|(c, a)| within_control(&c.out_of_order_over_actors, a));
    let verdict = if within {
        "**within the control's resolution at every delay**: out of order is as fast as the \
         actors as far as this bed can tell two runs apart (which is not the goal's \
         \"at least as fast\" shown beyond the resolution: that needs the interval wholly \
         at or below 1)"
    } else {
        "**not within the control's resolution at every delay**"
    };
    format!(
        "\nThe A/A control (the actors run twice in every round, the second run taking its turn \
         with the others) shows how far the key medians of two runs of one implementation \
         differ on this bed; the largest plausible distance from 1 of its interval is the \
         bed's resolution. With costs: {bounds}; {verdict}.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(estimate: f64, half: f64) -> Interval {
        Interval {
            estimate,
            low: estimate - half,
            high: estimate + half,
        }
    }

    #[test]
    fn a_ratio_is_met_missed_or_level_by_its_interval() {
        assert_eq!(at_most_one(&at(0.98, 0.01)), Verdict::Met);
        assert_eq!(at_most_one(&at(1.02, 0.01)), Verdict::Missed);
        assert_eq!(at_most_one(&at(1.005, 0.01)), Verdict::Level);
    }

    #[test]
    fn a_ratio_is_within_the_control_when_it_reaches_no_further_above_one() {
        // Two runs of the actors differ by up to 3 % here.
        let control = Interval {
            estimate: 1.005,
            low: 0.98,
            high: 1.03,
        };
        assert!((resolution(&control) - 0.03).abs() < 1e-12);
        assert!(within_control(&at(1.0, 0.028), &control));
        assert!(!within_control(&at(1.01, 0.028), &control));
        // A control wholly on one side of 1 still sets the distance by its far end.
        let skewed = at(0.95, 0.01);
        assert!((resolution(&skewed) - 0.06).abs() < 1e-12);
        assert!(within_control(&at(1.0, 0.05), &skewed));
        assert!(!within_control(&at(1.0, 0.07), &skewed));
    }

    #[test]
    fn a_saturation_short_by_at_most_two_batches_is_level() {
        let step = Some(10.0 / 2.4);
        assert_eq!(
            at_least(&[(300.0, 300.0), (304.2, 300.0)], step),
            Verdict::Met
        );
        assert_eq!(at_least(&[(291.7, 300.0)], step), Verdict::Level);
        assert_eq!(at_least(&[(283.3, 300.0)], step), Verdict::Missed);
        assert_eq!(at_least(&[(291.7, 300.0)], None), Verdict::Missed);
        assert_eq!(at_least(&[], step), Verdict::Missed);
    }

    #[test]
    fn growth_needs_each_interval_above_the_last() {
        assert_eq!(
            growing(&[at(1.0, 0.1), at(2.0, 0.1), at(3.0, 0.1)]),
            Verdict::Met
        );
        assert_eq!(growing(&[at(1.0, 0.1), at(1.05, 0.1)]), Verdict::Level);
        assert_eq!(growing(&[at(1.0, 0.1), at(0.5, 0.1)]), Verdict::Missed);
        assert_eq!(growing(&[at(1.0, 0.1)]), Verdict::Missed);
    }
}
