//! The two paragraphs of the impaired-links section about concurrent send's key: the
//! cost model against the runs (why in order's loss cannot grow with the delay in this
//! choreography), and out of order against the actors (each implementation's own cost
//! per hop, measured on the bed with no service costs).

use std::path::Path;

use super::report::{Details, against_delay};
use super::stats::Side;
use super::{Comparison, HOPS, Links, SEND};
use crate::drive::Implementation;

/// The plan a details file was made with, as far as the cost model needs it (the
/// concurrent send's seed, rate, duration, rounds and the links' jitter).
fn plan_of(d: &Details) -> Option<super::Plan> {
    let plan = d.plan.as_object()?;
    let mut p = super::Plan::full(plan.get("seed")?.as_u64()?);
    p.send_rate = plan.get("send_rate")?.as_f64()?;
    p.send_duration = plan.get("send_duration")?.as_f64()?;
    p.send_rounds = plan
        .get("send_rounds")
        .and_then(|r| r.as_u64())
        .unwrap_or(1) as usize;
    p.jitter_slot_ms = plan
        .get("jitter_slot_ms")
        .and_then(|r| r.as_f64())
        .unwrap_or(0.0);
    p.jitter = d.jitter;
    Some(p)
}

fn with_costs(d: &Details, delay_ms: f64) -> Option<&Comparison> {
    d.comparisons
        .iter()
        .find(|c| c.benchmark == SEND && c.delay_ms as f64 == delay_ms)
}

/// Concurrent send's key in numbers: what the cost model expects in order's key to lose
/// at each delay ([`super::model`]) beside what the runs measured, and why it cannot grow.
pub(super) fn in_numbers(links: &Links, d: &Details) -> String {
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
            let measured = match with_costs(d, o.0) {
                Some(c) => c.in_order_minus_out_of_order_ms.show(2, " ms"),
                None => format!("{:.2} ms", i.1 - o.1),
            };
            format!("{:.0} ms: model {expected:.2} ms, measured {measured}", o.0)
        })
        .collect();
    let jitter_adds = model.last().zip(model.first()).map_or(0.0, |(l, f)| l - f);
    let drawn = match plan.as_ref().map_or(0.0, |p| p.jitter_slot_ms) {
        0.0 => "per chunk".to_string(),
        slot => format!("per {slot} ms slot of each link's direction"),
    };
    let resolution_of = |widest: f64| {
        if d.comparisons.is_empty() {
            "than these medians move from run to run".to_string()
        } else {
            format!(
                "against a resolution of ± {widest:.2} ms in this run (the widest \
                 half-interval), so the runs can show it only if it is larger than that"
            )
        }
    };
    let widest = d
        .comparisons
        .iter()
        .filter(|c| c.benchmark == SEND)
        .map(|c| {
            let i = &c.in_order_minus_out_of_order_ms;
            (i.high - i.low) / 2.0
        })
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
         little by the jitter (every link uniform in delay ± {:.0} %, drawn {drawn}, \
         which widens both forms' medians). The cost model with those draws \
         (`impaired/model.rs`, {} link draws per session) against the runs, in order \
         minus out of order, key medians (measured with its 95 % interval, when the run \
         made one): {}. The delay \
         itself cancels; the jitter, which scales with it, adds {jitter_adds:.2} ms at the \
         largest delay in the model, {}. What would grow is a choreography whose in-order key waits behind a message \
         that crosses more links than the key (one delay per extra link); here the growing \
         advantage is model serving's, whose in-order cycle crosses five links per batch \
         (above).\n",
        max - key,
        d.jitter * 100.0,
        super::model::DRAWS,
        rows.join("; "),
        resolution_of(widest),
    )
}

/// Out of order against the actors on the key: what the runs with costs resolve, and
/// each implementation's own cost per hop on the bed (the runs with no service costs at
/// the smallest delay) beside the in-memory closed-loop profile, when `results.json` in
/// `dir` has it.
pub(super) fn against_actors(dir: &Path, d: &Details) -> String {
    let Some(hops) = d.comparisons.iter().find(|c| c.benchmark == HOPS) else {
        return String::new();
    };
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
    let gap = &hops.out_of_order_minus_actors_ms;
    let reading = match gap.against(0.0) {
        Side::Above => format!(
            "out of order is slower by {} per key, which crosses two links: about {:.0} µs \
             per hop",
            gap.show(3, " ms"),
            gap.estimate * 1e3 / 2.0
        ),
        Side::AtOrBelow => format!(
            "out of order is not slower: the difference is {}",
            gap.show(3, " ms")
        ),
        Side::Across => format!(
            "the two cannot be told apart: the difference is {}",
            gap.show(3, " ms")
        ),
    };
    let chunks = |imp: Implementation| {
        let runs = d
            .runs
            .iter()
            .filter(|m| m.benchmark == SEND && m.implementation == imp);
        let counted: Vec<(u64, u64)> = runs.filter_map(|m| m.chunks_s_c).collect();
        let sum = counted.iter().fold((0, 0), |t, c| (t.0 + c.0, t.1 + c.1));
        (!counted.is_empty()).then(|| format!("{} {} and {} back", imp.name(), sum.0, sum.1))
    };
    let traffic: Vec<String> = Implementation::ALL.into_iter().filter_map(chunks).collect();
    let traffic = if traffic.is_empty() {
        String::new()
    } else {
        format!(
            " What each transport sends besides the messages, counted by the relay on the \
             link between `s` and `c` over the runs with costs (TCP chunks `s` → `c`, and \
             back, where `c` sends no message: lane set-up and, for the choreographies, \
             the accepting ends' acknowledgements): {}.",
            traffic.join(", ")
        )
    };
    format!(
        "\nOut of order against the actors on the key. With no delay and no service \
         costs (the last row of the comparisons), the key's latency is each \
         implementation's own cost: two hops through the relay and the endpoints (a keyed \
         mailbox, an envelope carrying its integrity key, a frame the sending session \
         writes to its lane itself while the lane's writer has nothing queued, for the \
         choreography; a frame written by a link's bridging task for the actors; in both, \
         only the services wait for a session's due time, `s` and `c` take messages as \
         they come). On the \
         bed {reading}, over {} sessions of each.{memory}{traffic} Stage by stage \
         (`send_profile --stages`, crates/mpst-choreo/BENCHMARKS.md, \"Where a hop's time \
         goes, stage by stage\"), no one stage holds the difference: the software path \
         at `s` and `c` (decoding and filing the envelope, the session's poll, encoding \
         and writing the forward) is a few µs slower a step, and the rest is waiting for \
         a core, since out of order's hosts use more CPU per session with the same \
         system calls per message; per host and in instructions \
         (crates/mpst-choreo-eval/HOSTS.md), the difference is at `s` and `c`, about \
         30 k instructions a session more than the actors' there (the lane reader's \
         decoding, the sessions' polls, the mailbox), run with cold caches. With costs \
         and delays the same \
         gap is part of every key median; whether a run can see it is what its interval \
         says (the goals above). On this machine (2 cores, load average {} when the runs \
         started) every extra wake-up also waits for a core.\n",
        hops.sessions, d.load_before
    )
}
