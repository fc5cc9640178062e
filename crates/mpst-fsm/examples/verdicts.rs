//! Prints the results tables of `BENCHMARKS.md` ("Three answers" and "The CONCUR'19
//! corpus, pair for pair"): `subtype::check` on the papers' examples (PPoPP'22 and
//! CONCUR'19), the families of both, nested cycles and generated pairs, with the answer
//! and the median time of 5 runs; then every test pair of the CONCUR'19 tool, summarised
//! by the tool's answer and pair for pair. Run with
//! `cargo run --release -p mpst-fsm --example verdicts`.

use std::time::{Duration, Instant};

#[path = "../tests/it/support/concur19.rs"]
mod concur19;

use mpst_fsm::families::Family;
use mpst_fsm::subtype::{DEFAULT_VISITS, Options, Proof, Refutation, Stats, Verdict, check};
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
fn random(seed: &mut u64, states: usize, transitions: usize) -> Fsm {
    let mut next = |n: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed % n) as usize
    };
    let mut fsm = Fsm::new("r");
    for _ in 0..(2 + next(transitions as u64)) {
        let (from, to) = (next(states as u64), next(states as u64));
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
    let running = "rec x. p!HQ(). p?{OK(). x, KO(). p!LQ(). x}";
    let running_sup = "rec x. p!{HQ(). p?{OK(). x, KO(). x}, LQ(). p?{OK(). x, KO(). x}}";
    pair(
        "running example (satellite)",
        "CONCUR'19",
        fsm(running),
        fsm(running_sup),
        DEFAULT_VISITS,
    );
    pair(
        "running example, the other way round",
        "CONCUR'19",
        fsm(running_sup),
        fsm(running),
        DEFAULT_VISITS,
    );
    let shown = [
        "alcestewiki1 ≤ alcestewiki2",
        "july1 ≤ july2",
        "september1 ≤ september2",
        "infinitea ≤ infiniteb",
        "patternthenloop1 ≤ patternthenloop2",
        "snewex1 ≤ snewex2",
        "smallinnerloop1 ≤ innerloop2",
        "twinstar ≤ ex2",
        "ctxta1 ≤ ctxta2",
        "14may2 ≤ 14may1",
        "alceste-T ≤ alceste-V",
        "nestedrec1 ≤ nestedrec2",
        "alceste-V-dual ≤ alceste-U-dual",
    ];
    for &(name, sub, sup, expect) in concur19::PAIRS {
        if shown.contains(&name) {
            let tool = match expect {
                concur19::Yes => "CONCUR'19 (tool: True)",
                concur19::PosMaybe => "CONCUR'19 (tool: Maybe)",
                concur19::No => "CONCUR'19 (tool: False)",
            };
            pair(name, tool, fsm(sub), fsm(sup), DEFAULT_VISITS);
        }
    }
    for n in [1, 2, 4, 6] {
        for (sends, receives, which) in [(n, 1, "A"), (1, n, "B")] {
            let (sub, sup) = concur19_family(sends, receives);
            pair(
                &format!("family {which} ({sends} sends, {receives} receives)"),
                "CONCUR'19 families",
                fsm(&sub),
                fsm(&sup),
                DEFAULT_VISITS,
            );
        }
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..20 {
        let (sub, sup) = (random(&mut seed, 4, 6), random(&mut seed, 4, 6));
        pair(
            &format!("random pair {i}"),
            "generated",
            sub,
            sup,
            DEFAULT_VISITS,
        );
    }
    for i in 0..10 {
        let (sub, sup) = (random(&mut seed, 20, 40), random(&mut seed, 20, 40));
        pair(
            &format!("random pair of ≤ 20 states {i}"),
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
                ("proved", proof(&stats))
            }
            Verdict::NotSubtype(r) => {
                counts[1] += 1;
                ("refuted", run(&r))
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
    corpus();
}

/// The CONCUR'19 tool's family: per round the subtype sends `sends + 1` messages
/// ahead, then receives one of `receives + 1` labels; the supertype sends one, then
/// receives one.
fn concur19_family(sends: usize, receives: usize) -> (String, String) {
    let seq: Vec<String> = (0..=sends).map(|i| format!("p!a{i}()")).collect();
    let rcv: Vec<String> = (0..=receives).map(|i| format!("b{i}(). x")).collect();
    let sub = format!("rec x. {}. p?{{{}}}", seq.join(". "), rcv.join(", "));
    let branches: Vec<String> = (0..=sends)
        .map(|i| format!("a{i}(). p?{{{}}}", rcv.join(", ")))
        .collect();
    (sub, format!("rec x. p!{{{}}}", branches.join(", ")))
}

/// How a pair was proved.
fn proof(stats: &Stats) -> String {
    match stats.proof {
        Proof::Rules => format!("{} configurations", stats.pairs_explored),
        Proof::WitnessTrees {
            nodes,
            on_duals: false,
            ..
        } => format!("witness trees, {nodes} nodes"),
        Proof::WitnessTrees {
            nodes,
            on_duals: true,
            ..
        } => format!("witness trees on the duals, {nodes} nodes"),
    }
}

/// The run that refutes a pair: the property it violates and its length.
fn run(refutation: &Refutation) -> String {
    let run = &refutation.run;
    match &run.escape {
        None => format!("{} after {} steps", run.kind.property(), run.trace.len()),
        Some(escape) => format!(
            "{} after {} steps, then a loop of {} sends never takes it",
            run.kind.property(),
            run.trace.len(),
            escape.cycle.len()
        ),
    }
}

/// Every test pair of the CONCUR'19 tool: how many we prove (by which technique),
/// refute (by which kind of run) or leave unknown, against that tool's answer; the
/// slowest check; then the pair-for-pair comparison.
fn corpus() {
    use concur19::Expect;
    let tool = |e: Expect| match e {
        Expect::Yes => "True",
        Expect::PosMaybe => "Maybe",
        Expect::No => "False",
    };
    let mut table = Vec::new();
    println!(
        "\n| CONCUR'19 tool's answer | pairs | proved (rules) | proved (witness trees) | \
         proved (witness trees on the duals) | refuted (run to a bad configuration) | \
         refuted (message left unread by a send loop) | unknown | slowest |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (expect, label) in [
        (Expect::Yes, "True (a subtype)"),
        (Expect::PosMaybe, "Maybe (a subtype)"),
        (Expect::No, "False (not a subtype)"),
    ] {
        let mut c = [0usize; 7];
        let mut slowest = Duration::ZERO;
        for &(name, sub, sup, e) in concur19::PAIRS.iter().filter(|p| p.3 == expect) {
            let (sub, sup) = (fsm(sub), fsm(sup));
            let start = Instant::now();
            let verdict = check(&sub, &sup, &Options::default());
            let time = start.elapsed();
            slowest = slowest.max(time);
            c[0] += 1;
            let (ours, how) = match &verdict {
                Verdict::Subtype(s) => {
                    c[match s.proof {
                        Proof::Rules => 1,
                        Proof::WitnessTrees {
                            on_duals: false, ..
                        } => 2,
                        Proof::WitnessTrees { on_duals: true, .. } => 3,
                    }] += 1;
                    ("proved", proof(s))
                }
                Verdict::NotSubtype(r) => {
                    c[if r.run.escape.is_some() { 5 } else { 4 }] += 1;
                    ("refuted", run(r))
                }
                Verdict::Unknown(_) => {
                    c[6] += 1;
                    ("unknown", String::new())
                }
            };
            table.push(format!(
                "| {name} | {} | {ours} | {how} | {time:.1?} |",
                tool(e)
            ));
        }
        println!(
            "| {label} | {} | {} | {} | {} | {} | {} | {} | {slowest:.1?} |",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6]
        );
    }
    println!("\n| pair | tool | ours | proof or run | time |");
    println!("|---|---|---|---|---:|");
    for row in table {
        println!("{row}");
    }
}
