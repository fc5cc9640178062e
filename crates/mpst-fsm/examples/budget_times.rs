//! Measures how long `subtype::check` takes with the *default* budgets on machines of
//! at most 20 states (issue 14: "every check of machines with ≤ 20 states answers
//! within 1 s"): a fixed-seed set of random pairs shaped like the property test's
//! `specs20`, half of them independent and half a machine against a variant of itself,
//! plus every test pair of the CONCUR'19 tool and the PPoPP'22 families. Prints the
//! answers, the median / p99 / max wall time and the slowest pairs with what each phase
//! spent. A measurement, not a test (wall time depends on the load). Run with
//! `cargo run --release -p mpst-fsm --example budget_times`.

use std::time::{Duration, Instant};

#[path = "../tests/it/support/concur19.rs"]
mod concur19;
#[path = "support/spec_machine.rs"]
mod spec_machine;

use mpst_fsm::families::Family;
use mpst_fsm::subtype::{NotWitnessed, Options, Proof, Verdict, check, is_subtype};
use mpst_fsm::witness::{Search, against_dual, dual_is_a_context};
use mpst_fsm::{Action, Fsm, LocalType, Message};
use spec_machine::{Spec, machine};

/// Random pairs of each kind (independent, and a machine against its variant).
const PAIRS_PER_KIND: usize = 500;

/// SplitMix64: a small seeded generator, so the set of pairs is the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Like the property test's `specs20`: 1 to 40 transitions (from, peer, send?, label,
/// to) over states 0..20 and peers `p`, `q`, through the tests' own `machine`.
fn random20(rng: &mut Rng) -> Fsm {
    let specs: Vec<Spec> = (0..1 + rng.below(40))
        .map(|_| {
            let (from, peer, send) = (rng.below(20), rng.below(2), rng.below(2) == 0);
            (from, peer, send, rng.below(3), rng.below(20))
        })
        .collect();
    machine(&specs)
}

/// `sup` with one extra branch `d` out of its first state that has transitions (the
/// variant of the first property test).
fn variant(sup: &Fsm) -> Fsm {
    let mut same = sup.clone();
    if let Some(s) = (0..same.state_count()).find(|&s| !same.is_final(s)) {
        let first = same.transitions(s)[0].action.clone();
        let extra = same.add_state();
        let action = Action {
            message: Message::new("d"),
            ..first
        };
        let _ = same.add_transition(s, action, extra);
    }
    same
}

fn parse(text: &str) -> Fsm {
    LocalType::parse(text)
        .expect("a valid local type")
        .to_fsm("r")
        .expect("a valid machine")
}

/// One measured check.
struct Run {
    name: String,
    sub: Fsm,
    sup: Fsm,
    time: Duration,
    verdict: Verdict,
}

fn measure(name: String, sub: Fsm, sup: Fsm) -> Run {
    let start = Instant::now();
    let verdict = check(&sub, &sup, &Options::default());
    let time = start.elapsed();
    Run {
        name,
        sub,
        sup,
        time,
        verdict,
    }
}

/// What each search of the verdict counted: rules' steps, witness-tree nodes and work,
/// configurations of the search for a wrong run.
fn counters(v: &Verdict) -> String {
    let (steps, trees, search) = match v {
        Verdict::Subtype(s) => match s.proof {
            Proof::Rules => (s.pairs_explored, None, None),
            Proof::WitnessTrees { nodes, work, .. } => {
                (s.pairs_explored, Some((nodes, work)), None)
            }
        },
        Verdict::NotSubtype(r) => (r.not_proved.steps, None, Some("found".to_string())),
        Verdict::Unknown(u) => {
            let trees = match &u.witness_trees {
                Some(NotWitnessed::Budget { nodes, work, .. }) => Some((*nodes, *work)),
                _ => None,
            };
            let search = match &u.search {
                Some(Search::Safe(n)) => Some(format!("{n} (all)")),
                Some(Search::GaveUp(_, n)) => Some(format!("{n} (gave up)")),
                _ => None,
            };
            (u.not_proved.steps, trees, search)
        }
    };
    let trees = trees.map_or("—".into(), |(n, w)| format!("{n} nodes, {w} work"));
    format!("{steps} | {trees} | {}", search.unwrap_or("—".into()))
}

fn answer(v: &Verdict) -> usize {
    match v {
        Verdict::Subtype(_) => 0,
        Verdict::NotSubtype(_) => 1,
        Verdict::Unknown(_) => 2,
    }
}

/// The fastest of 5 runs (the least disturbed by other load) of each phase alone: the rules (`is_subtype`, which like `check`
/// runs a failed search twice), the search for a wrong run, and the whole check; the
/// witness trees take the rest.
fn phases(run: &Run) -> String {
    let median = |f: &mut dyn FnMut()| {
        let mut t: Vec<Duration> = (0..5)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        t.sort();
        t[0]
    };
    let options = Options::default();
    let total = median(&mut || drop(check(&run.sub, &run.sup, &options)));
    let rules = median(&mut || drop(is_subtype(&run.sub, &run.sup, options.visits)));
    let search = if run.verdict.is_subtype() || !dual_is_a_context(&run.sup) {
        Duration::ZERO
    } else {
        median(&mut || drop(against_dual(&run.sub, &run.sup, &options.witness)))
    };
    let trees = total.saturating_sub(rules + search);
    format!("{total:.1?} | {rules:.1?} | {trees:.1?} | {search:.1?}")
}

fn main() {
    let mut rng = Rng(0x5EED_2026_1127_0014);
    let mut pairs = Vec::new();
    for i in 0..PAIRS_PER_KIND {
        let (sub, sup) = (random20(&mut rng), random20(&mut rng));
        pairs.push((format!("random {i}"), sub, sup));
        let sup = random20(&mut rng);
        pairs.push((format!("variant {i}"), variant(&sup), sup));
    }
    let random = pairs.len();
    for &(name, sub, sup, _) in concur19::PAIRS {
        pairs.push((name.to_string(), parse(sub), parse(sup)));
    }
    for family in Family::ALL {
        for n in 1..=4 {
            let Ok(instance) = family.instance(n) else {
                continue;
            };
            let (optimised, projected) = instance.checks()[0];
            pairs.push((
                format!("{family} {n}"),
                optimised.clone(),
                projected.clone(),
            ));
        }
    }
    // `budget_times NAME` checks only that pair, once (for instruction counts under
    // `valgrind --tool=callgrind`, which the load does not disturb).
    if let Some(only) = std::env::args().nth(1) {
        for (name, sub, sup) in pairs.into_iter().filter(|p| p.0 == only) {
            let run = measure(name, sub, sup);
            println!(
                "{}: {} | {}",
                run.name,
                counters(&run.verdict),
                run.time.as_secs_f64()
            );
        }
        return;
    }
    let mut runs: Vec<Run> = pairs
        .into_iter()
        .map(|(name, sub, sup)| measure(name, sub, sup))
        .collect();
    println!(
        "| set | pairs | largest machine (states) | proved | refuted | unknown | median | p99 | max |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (set, part) in [
        ("random, ≤ 20 states (+1 for variants)", &runs[..random]),
        (
            "CONCUR'19 tool's pairs + PPoPP'22 families",
            &runs[random..],
        ),
        ("all", &runs[..]),
    ] {
        let mut count = [0; 3];
        for r in part {
            count[answer(&r.verdict)] += 1;
        }
        let mut times: Vec<Duration> = part.iter().map(|r| r.time).collect();
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "| {set} | {} | {} | {} | {} | {} | {:.1?} | {:.1?} | {:.1?} |",
            part.len(),
            part.iter()
                .map(|r| r.sub.state_count().max(r.sup.state_count()))
                .max()
                .unwrap_or(0),
            count[0],
            count[1],
            count[2],
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
    runs.sort_by_key(|r| std::cmp::Reverse(r.time));
    println!(
        "\nThe five slowest (each phase re-run alone, fastest of 5; trees = check - rules - search):\n"
    );
    println!(
        "| pair | states (sub, sup) | answer | rules' steps | witness trees | wrong-run search (configurations) | first run | check | rules | trees | wrong-run search |"
    );
    println!("|---|---|---|---:|---|---|---:|---:|---:|---:|---:|");
    for run in &runs[..5] {
        println!(
            "| {} | {}, {} | {} | {} | {:.1?} | {} |",
            run.name,
            run.sub.state_count(),
            run.sup.state_count(),
            ["proved", "refuted", "unknown"][answer(&run.verdict)],
            counters(&run.verdict),
            run.time,
            phases(run)
        );
    }
    let slowest = &runs[0];
    let verdict = slowest.verdict.to_string();
    let first: Vec<&str> = verdict.lines().take(4).collect();
    println!("\nslowest pair: {}\n{}", slowest.name, first.join("\n"));
}
