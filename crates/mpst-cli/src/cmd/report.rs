//! `mpst report`: a self-contained HTML page about every protocol of a Scribble file —
//! the source with its diagnostics, the global sequence chart, every role's machine,
//! the well-formedness, k-MC and subtyping verdicts, and any run that goes wrong as a
//! message sequence chart. The pictures come from `mpst-viz`; this module runs the
//! checks and writes the file.

use std::path::PathBuf;

use mpst_codegen::{check_optimised, swap_in};
use mpst_diagnostics::optimised::Optimised;
use mpst_fsm::Fsm;
use mpst_fsm::kmc::{KmcOptions, KmcReport, check_kmc_observed};
use mpst_fsm::subtype::Verdict as SubtypeVerdict;
use mpst_scribble::frontend::FrontendError;
use mpst_scribble::{Diagnostic, GlobalProtocol, Loaded};
use mpst_viz::html::{
    Figure, Machine, Note, Report, Secondary, Section, Severity, Status, Verdict,
};
use mpst_viz::{fsm_svg, global_chart, report_html, run_chart};

use crate::load::dot::OptimisedArgs;
use crate::load::scribble::{self, Scribble};
use crate::{Outcome, UsageError, progress};

/// Arguments of `mpst report`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The page needs no network: every picture is inline SVG, the only script is \
inline. Exit status: 0 = every check holds; 1 = a protocol is invalid or a check fails; 3 = no \
check fails but one is unknown (the report is written in every case); 2 = bad usage or unreadable input (for malformed \
Scribble the report, with the diagnostics, is still written)."
)]
pub struct Args {
    /// The Scribble file.
    pub file: PathBuf,
    /// Report only this protocol (by default, every protocol of the file).
    #[arg(long, short = 'p', value_name = "P")]
    pub protocol: Option<String>,
    /// `--optimised ROLE=FSM.dot` (repeatable) and `--visits N`.
    #[command(flatten)]
    pub optimised: OptimisedArgs,
    /// The largest queue bound k tried by the k-MC check (the least k in 1..=K is
    /// reported).
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub max_k: usize,
    /// Write the page to OUT.html instead of stdout.
    #[arg(long, short = 'o', value_name = "OUT.html")]
    pub output: Option<PathBuf>,
}

/// A diagnostic of the presentation layer for the page: its message and notes under
/// the line it points at, each secondary label ("the choice is made here") under the
/// line that label points at.
fn note(d: &mpst_diagnostics::Diagnostic) -> Note {
    let mut message = d.headline();
    for n in &d.notes {
        message.push_str(&format!("\n  note: {n}"));
    }
    let span = d.primary().map_or(0..0, |l| l.span.clone());
    Note {
        severity: match d.severity {
            mpst_diagnostics::Severity::Error => Severity::Error,
            mpst_diagnostics::Severity::Warning => Severity::Warning,
        },
        start: span.start,
        end: span.end,
        message,
        labels: d
            .labels
            .iter()
            .filter(|l| !l.primary)
            .map(|label| Secondary {
                start: label.span.start,
                end: label.span.end,
                message: label.message.clone(),
            })
            .collect(),
    }
}

/// The front end's diagnostics for the page.
fn notes(diagnostics: &[Diagnostic]) -> impl Iterator<Item = Note> + '_ {
    diagnostics
        .iter()
        .map(|d| note(&mpst_diagnostics::Diagnostic::scribble(0, d)))
}

fn verdict(check: &str, status: Status, summary: String, details: String) -> Verdict {
    Verdict {
        check: check.into(),
        status,
        summary,
        details,
    }
}

/// The least k in `1..=max_k` for which `system` is k-MC, or the failing report of
/// the last k tried.
fn kmc(
    system: &[Fsm],
    max_k: usize,
    count: &progress::Count,
) -> Result<KmcReport, mpst_fsm::kmc::KmcError> {
    let mut last = None;
    for k in 1..=max_k.max(1) {
        let options = KmcOptions::new(k);
        // A state receiving from several peers is generated as an `Offer`: the system
        // is checked as the runtime runs it, as code generation checks it.
        let report = if has_offer(system) {
            mpst_fsm::kmc::check_kmc_offer(system, &options)?
        } else {
            check_kmc_observed(system, &options, &mut |n| count.set(n))?
        };
        if report.is_kmc() {
            return Ok(report);
        }
        last = Some(report);
    }
    last.ok_or(mpst_fsm::kmc::KmcError::ZeroBound)
}

/// Whether some machine of `system` has a state receiving from several peers.
fn has_offer(system: &[Fsm]) -> bool {
    system
        .iter()
        .any(|f| mpst_fsm::kmc::offer_state(f).is_some())
}

/// Everything about one protocol, with its diagnostics added to `notes`.
fn section(
    loaded: &Scribble,
    protocol: &GlobalProtocol,
    optimised: &[Optimised],
    args: &Args,
    notes: &mut Vec<Note>,
) -> Section {
    let name = protocol.name.text.clone();
    let mut s = Section {
        name: name.clone(),
        chart: Some(Figure {
            caption: format!("global protocol {name}"),
            svg: global_chart(protocol),
        }),
        ..Section::default()
    };
    notes.extend(mpst_diagnostics::unused_roles(0, protocol).iter().map(note));
    let projections = match loaded.project(protocol) {
        Ok(projections) => projections,
        Err(error) => {
            // On stderr as `mpst check` reports them; the verdict below makes the exit 1.
            let _reported = loaded.report(&error);
            let errors = match &error {
                FrontendError::Diagnostics { diagnostics, .. } => diagnostics.as_slice(),
                FrontendError::NoSuchProtocol { .. } => &[],
            };
            notes.extend(self::notes(errors));
            let details: Vec<String> = errors.iter().map(|d| d.to_string()).collect();
            s.verdicts.push(verdict(
                "well-formedness",
                Status::Fails,
                format!(
                    "invalid: {} error{}, marked in the source below",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" }
                ),
                details.join("\n"),
            ));
            return s;
        }
    };
    s.verdicts.push(verdict(
        "well-formedness",
        Status::Holds,
        if projections.len() == 1 {
            "well-formed; its one role projects".to_string()
        } else {
            format!(
                "well-formed; every one of the {} roles projects",
                projections.len()
            )
        },
        String::new(),
    ));
    // Subtyping and the swap-in are code generation's (`check_optimised`, `swap_in`):
    // the same check as `mpst generate --optimised` and the build helper, each verdict
    // shown, and k-MC run with the optimised machines in place.
    let mine: Vec<&Optimised> = optimised
        .iter()
        .filter(|o| projections.iter().any(|p| p.role == o.role))
        .collect();
    let better: Vec<Fsm> = mine.iter().map(|o| o.machine.fsm.clone()).collect();
    let loaded = Loaded {
        protocol: protocol.clone(),
        projections,
    };
    let options = args.optimised.subtyping();
    // Every role of `better` is one of the protocol's, so there is a verdict for each.
    let verdicts = check_optimised(&loaded, &better, &options).unwrap_or_default();
    let system = swap_in(&loaded, &better);
    for p in &loaded.projections {
        s.machines.push(Machine {
            role: p.role.clone(),
            svg: fsm_svg(&p.fsm),
            optimised: None,
        });
        let Some(i) = mine.iter().position(|o| o.role == p.role) else {
            continue;
        };
        let (opt, answer) = (mine[i], &verdicts[i]);
        s.machines.push(Machine {
            role: p.role.clone(),
            svg: fsm_svg(&opt.machine.fsm),
            optimised: Some(opt.source.name.clone()),
        });
        let check = format!("subtyping of optimised {}", p.role);
        let summary = answer
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let (status, run) = match answer {
            SubtypeVerdict::Subtype(_) => (Status::Holds, None),
            SubtypeVerdict::NotSubtype(refutation) => (Status::Fails, Some(&refutation.run)),
            SubtypeVerdict::Unknown(_) => (Status::Unknown, None),
        };
        if let Some(run) = run {
            let roles = vec![p.role.clone()];
            s.counterexamples.push(Figure {
                caption: format!("optimised {} beside the dual of its projection", p.role),
                svg: run_chart(&roles, &run.trace, &run.kind.to_string()),
            });
        }
        s.verdicts
            .push(verdict(&check, status, summary, answer.to_string()));
    }
    let what = match (!mine.is_empty(), has_offer(&system)) {
        (true, true) => "k-MC (with the optimised machines, as the generated Offer runs them)",
        (true, false) => "k-MC (with the optimised machines)",
        (false, true) => "k-MC (as the generated Offer runs the machines)",
        (false, false) => "k-MC",
    };
    let checked = progress::run(&format!("k-MC of {name}"), |count| {
        kmc(&system, args.max_k, count)
    });
    match checked {
        Ok(report) => {
            let status = if report.is_kmc() {
                Status::Holds
            } else {
                Status::Fails
            };
            let summary = match &report.violation {
                None => format!("holds for k = {}", report.k),
                Some(v) => format!(
                    "fails for every k ≤ {}: {} fails: {}",
                    report.k,
                    v.property(),
                    v.kind
                ),
            };
            if let Some(v) = &report.violation {
                let roles: Vec<String> = system.iter().map(|f| f.role().to_string()).collect();
                s.counterexamples.push(Figure {
                    caption: format!("k-MC counterexample (k = {})", report.k),
                    svg: run_chart(
                        &roles,
                        &v.trace,
                        &format!("{} fails: {}", v.property(), v.kind),
                    ),
                });
            }
            s.verdicts
                .push(verdict(what, status, summary, report.to_string()));
        }
        Err(e) => s.verdicts.push(verdict(
            what,
            Status::Unknown,
            format!("not checked: {e}"),
            String::new(),
        )),
    }
    s
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    // Read and parsed by the CLI's one loader: a file that does not parse gets the
    // diagnostics and exit status of `mpst check`, and the page still shows its source
    // with them.
    let parsed = scribble::parse(&args.file)?;
    let optimised = args.optimised.read()?;
    let mut report = Report {
        file: args.file.display().to_string(),
        ..Report::default()
    };
    let mut outcome = Ok(Outcome::Holds);
    match parsed {
        Err(unparsed) => {
            if let FrontendError::Diagnostics { diagnostics, .. } = &unparsed.error {
                report.notes = notes(diagnostics).collect();
            }
            outcome = unparsed.report();
            report.source = unparsed.text;
        }
        Ok(loaded) => {
            report.source = loaded.source().to_string();
            let selected = loaded.select_all(args.protocol.as_deref())?;
            if selected.is_empty() {
                return Err(UsageError::Plain(format!(
                    "{}: no protocol found",
                    loaded.path
                )));
            }
            for opt in &optimised {
                let role = &opt.role;
                if !selected
                    .iter()
                    .any(|p| p.roles.iter().any(|r| &r.text == role))
                {
                    return Err(UsageError::Plain(format!(
                        "--optimised names role `{role}` ({}), but no protocol reported has it",
                        opt.source.name
                    )));
                }
            }
            for protocol in selected {
                let s = section(&loaded, protocol, &optimised, &args, &mut report.notes);
                for v in &s.verdicts {
                    let this = match v.status {
                        Status::Holds => Outcome::Holds,
                        Status::Fails => Outcome::Fails,
                        Status::Unknown => Outcome::Unknown,
                    };
                    outcome = outcome.map(|o| o.combine(this));
                }
                report.sections.push(s);
            }
        }
    }
    let html = report_html(&report);
    crate::output::out_or_file(args.output.as_deref(), &html)?;
    outcome
}
