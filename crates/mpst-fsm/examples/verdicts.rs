//! Prints the results table of `BENCHMARKS.md` ("Three answers"): `subtype::check` on
//! the papers' examples, the four families, nested cycles and generated pairs, with
//! the answer and the median time of 5 runs. Run with
//! `cargo run --release -p mpst-fsm --example verdicts`.

use std::time::{Duration, Instant};

use mpst_fsm::families::Family;
use mpst_fsm::subtype::{check, Options, Verdict, DEFAULT_VISITS};
use mpst_fsm::{Action, Direction, Fsm, LocalType, Message};

const KERNEL: &str = "rec x. s!ready(). s?value(). t?ready(). t!value(). x";

fn fsm(text: &str) -> Fsm {
    LocalType::parse(text)
        .expect("a valid local type")
        .to_fsm("r")
        .expect("a valid machine")
}

/// A small random session-type machine of role `r` (the generator of the property
/// tests), from a seed.
fn random(seed: &mut u64) -> Fsm {
    let mut next = |n: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed % n) as usize
    };
    let mut fsm = Fsm::new("r");
    for _ in 0..(2 + next(6)) {
        let (from, to) = (next(4), next(4));
        let send = next(2) == 0;
        while fsm.state_count() <= from.max(to) {
            fsm.add_state();
        }
        if let Some(first) = fsm.transitions(from).first() {
            if first.action.is_send() != send {
                continue;
            }
        }
        let action = Action {
            peer: "p".into(),
            direction: if send {
                Direction::Send
            } else {
                Direction::Receive
            },
            message: Message::new(["a", "b", "c"][next(3)]),
        };
        let _ = fsm.add_transition(from, action, to);
    }
    fsm
}

fn main() {
    let mut rows: Vec<(String, String, Fsm, Fsm, usize)> = Vec::new();
    let mut pair = |name: &str, source: &str, sub: Fsm, sup: Fsm, visits: usize| {
        rows.push((name.into(), source.into(), sub, sup, visits));
    };
    let ahead = format!("s!ready(). {KERNEL}");
    let three = format!("s!ready(). s!ready(). s!ready(). {KERNEL}");
    let paper: [(&str, &str, &str, usize); 14] = [
        (
            "double buffering, optimised kernel",
            &ahead,
            KERNEL,
            DEFAULT_VISITS,
        ),
        (
            "double buffering, the other way round",
            KERNEL,
            &ahead,
            DEFAULT_VISITS,
        ),
        (
            "Example 2: receive before send",
            "q?l2(). q!l1(). end",
            "q!l1(). q?l2(). end",
            DEFAULT_VISITS,
        ),
        (
            "Example 2: send before receive",
            "q!l1(). q?l2(). end",
            "q?l2(). q!l1(). end",
            DEFAULT_VISITS,
        ),
        (
            "Fig. A.14: forgetful subtype",
            "rec t. p?l(). t",
            "q?l2(). rec t. p?l(). t",
            DEFAULT_VISITS,
        ),
        (
            "sends to two peers swapped",
            "q!b(). p!a(). end",
            "p!a(). q!b(). end",
            DEFAULT_VISITS,
        ),
        (
            "sends to one peer swapped",
            "p!b(). p!a(). end",
            "p!a(). p!b(). end",
            DEFAULT_VISITS,
        ),
        (
            "internal choice shrinks",
            "q!a(). end",
            "q!{a(). end, b(). end}",
            DEFAULT_VISITS,
        ),
        (
            "internal choice grows",
            "q!{a(). end, b(). end}",
            "q!a(). end",
            DEFAULT_VISITS,
        ),
        (
            "external choice grows",
            "q?{a(). end, b(). end}",
            "q?a(). end",
            DEFAULT_VISITS,
        ),
        (
            "external choice shrinks",
            "q?a(). end",
            "q?{a(). end, b(). end}",
            DEFAULT_VISITS,
        ),
        ("ends early", "end", "q!a(). end", DEFAULT_VISITS),
        ("three readies ahead, --visits 1", &three, KERNEL, 1),
        ("three readies ahead, --visits 10", &three, KERNEL, 10),
    ];
    for (name, sub, sup, visits) in paper {
        pair(name, "PPoPP'22", fsm(sub), fsm(sup), visits);
    }
    let cycles = [
        (
            "output ahead of unbounded inputs",
            "rec x. p!a(). rec y. q?{b(). y, c(). x}",
            "rec x. rec y. q?{b(). y, c(). p!a(). x}",
        ),
        (
            "two outputs ahead of unbounded inputs",
            "rec x. p!a(). p!a(). rec y. q?{b(). y, c(). x}",
            "rec x. rec y. q?{b(). y, c(). p!a(). x}",
        ),
        (
            "nested cycles, output per input",
            "rec x. p!a(). rec y. q?{b(). p!a(). y, c(). x}",
            "rec x. q?{b(). p!a(). rec y. q?{b(). p!a(). y, c(). x}, c(). p!a(). x}",
        ),
        (
            "send loop against a waiting supertype",
            "rec x. p!a(). x",
            "rec x. q?b(). p!a(). x",
        ),
    ];
    for (name, sub, sup) in cycles {
        pair(name, "nested cycles", fsm(sub), fsm(sup), 10_000_000);
    }
    for family in Family::ALL {
        let sizes: &[usize] = match family {
            Family::NestedChoice => &[1, 2, 3, 4],
            Family::Ring => &[2, 10, 30],
            _ => &[1, 10, 50],
        };
        for &n in sizes {
            let instance = family.instance(n).expect("a valid size");
            let (optimised, projected) = instance.checks()[0];
            pair(
                &format!("{family} {n}"),
                "PPoPP'22 families",
                optimised.clone(),
                projected.clone(),
                instance.visits,
            );
        }
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..20 {
        let (sub, sup) = (random(&mut seed), random(&mut seed));
        pair(
            &format!("random pair {i}"),
            "generated",
            sub,
            sup,
            DEFAULT_VISITS,
        );
    }
    println!("| pair | source | answer | why | time |");
    println!("|---|---|---|---|---:|");
    let mut counts = [0usize; 3];
    for (name, source, sub, sup, visits) in &rows {
        let options = Options::new(*visits);
        let mut times: Vec<Duration> = Vec::new();
        let mut verdict = None;
        for _ in 0..5 {
            let start = Instant::now();
            verdict = Some(check(sub, sup, &options));
            times.push(start.elapsed());
        }
        times.sort();
        let (answer, why) = match verdict.expect("ran") {
            Verdict::Subtype(stats) => {
                counts[0] += 1;
                ("proved", format!("{} configurations", stats.pairs_explored))
            }
            Verdict::NotSubtype(r) => {
                counts[1] += 1;
                (
                    "refuted",
                    format!(
                        "{} after {} steps",
                        r.run.kind.property(),
                        r.run.trace.len()
                    ),
                )
            }
            Verdict::Unknown(u) => {
                counts[2] += 1;
                let reason = u.not_proved.reason.to_string();
                (
                    "unknown",
                    reason
                        .split([':', '('])
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_string(),
                )
            }
        };
        println!(
            "| {name} | {source} | {answer} | {why} | {:.1?} |",
            times[2]
        );
    }
    println!(
        "\n{} pairs: {} proved, {} refuted, {} unknown",
        rows.len(),
        counts[0],
        counts[1],
        counts[2]
    );
}
