//! A self-contained HTML report assembled from parts: the source with its
//! diagnostics, and for every protocol its verdicts, sequence chart, machines and
//! counterexamples. Every picture is inline SVG and the only script is inline, so the
//! page needs no network and no other file.
//!
//! The inline script checks the page as a reader would see it: that every picture
//! announced is in the page and drawn with a non-empty size. It writes what it
//! found into `#self-check` (`data-status="ok"` or `"failed"`, and
//! `data-problems`), where a headless browser test reads it.

use std::fmt::Write as _;

use crate::svg::{escape, inline};

mod legend;

use legend::{counterexamples_legend, machines_legend};

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The protocol is invalid or malformed.
    Error,
    /// Worth knowing; the protocol is still valid.
    Warning,
}

/// A diagnostic attached to the source: byte range and message, and the other places it
/// points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Error or warning.
    pub severity: Severity,
    /// First byte of the source it points at.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// What is wrong, in one or more lines.
    pub message: String,
    /// Other places that explain it (e.g. "the choice is made here"), each shown on its
    /// own line under the line where it starts.
    pub labels: Vec<Secondary>,
}

/// A place a [`Note`] points at besides its own, with what is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secondary {
    /// First byte of the source it points at.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// What is there, e.g. `the choice is made here`.
    pub message: String,
}

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The property holds.
    Holds,
    /// The property does not hold.
    Fails,
    /// The check could not decide (a bound or budget was reached, or it did not run).
    Unknown,
}

/// One check of a protocol and what it concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The check, e.g. `well-formedness` or `k-MC`.
    pub check: String,
    /// What it concluded.
    pub status: Status,
    /// One line, e.g. `holds for k = 1`.
    pub summary: String,
    /// The explanation, preformatted text; empty for none.
    pub details: String,
}

/// A titled picture (standalone SVG text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// The caption.
    pub caption: String,
    /// The SVG document.
    pub svg: String,
}

/// One role's machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The role.
    pub role: String,
    /// Its FSM as an SVG document.
    pub svg: String,
    /// `Some(file)` when this is an optimised machine read from `file` rather than
    /// the projection.
    pub optimised: Option<String>,
}

/// Everything shown for one protocol.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Section {
    /// The protocol's name.
    pub name: String,
    /// The checks, in the order shown.
    pub verdicts: Vec<Verdict>,
    /// The global sequence chart.
    pub chart: Option<Figure>,
    /// The machines: the projections (and optimised machines beside them).
    pub machines: Vec<Machine>,
    /// Runs that go wrong, as sequence charts.
    pub counterexamples: Vec<Figure>,
}

/// A whole report.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// The file's name as given, shown as the title.
    pub file: String,
    /// The file's text.
    pub source: String,
    /// Diagnostics on the source.
    pub notes: Vec<Note>,
    /// One section per protocol.
    pub sections: Vec<Section>,
}

const STYLE: &str = "
body{font-family:system-ui,'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0;color:#111827;background:#f9fafb}
header{background:#1f2937;color:white;padding:14px 24px}
header h1{margin:0;font-size:20px} header p{margin:4px 0 0;color:#d1d5db;font-size:14px}
main{padding:8px 24px 32px}
section{background:white;border:1px solid #e5e7eb;border-radius:8px;padding:12px 18px;margin:16px 0}
h2{font-size:18px;margin:4px 0 10px} h3{font-size:15px;margin:14px 0 6px;color:#374151}
.verdicts{border-collapse:collapse;font-size:14px}
.verdicts td{padding:3px 10px 3px 0;vertical-align:top} .verdicts td:nth-child(2){white-space:nowrap}
.badge{display:inline-block;min-width:64px;text-align:center;border-radius:10px;padding:1px 8px;font-weight:bold;font-size:12px}
.holds .badge{background:#dcfce7;color:#166534} .fails .badge{background:#fee2e2;color:#991b1b}
.unknown .badge{background:#fef3c7;color:#92400e}
pre{font-size:13px;white-space:pre-wrap;background:#f3f4f6;padding:8px;border-radius:4px;overflow:auto;margin:4px 0}
.source{counter-reset:line;padding:0}
.source .line{display:block;padding:0 8px} .source .line::before{counter-increment:line;content:counter(line);display:inline-block;width:3em;color:#9ca3af}
.source .flagged{background:#fee2e2} .source .flagged.warning{background:#fef3c7}
.source .diag{display:block;padding:0 8px 0 calc(3em + 8px);color:#991b1b;font-weight:bold;white-space:pre-wrap}
.source .diag.warning{color:#92400e}
.source .marked{background:#eef2ff} .source .diag.secondary{color:#3730a3;font-weight:normal}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px;color:#374151;margin:0 0 8px}
.legend span{display:inline-flex;align-items:center;gap:6px} .legend .mark{display:inline-block;box-sizing:border-box}
.pictures{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
figure{margin:0;border:1px solid #e5e7eb;border-radius:6px;padding:6px;background:white;max-width:100%;overflow:auto}
figcaption{font-size:13px;color:#374151;margin-bottom:4px}
figure svg{max-width:100%;height:auto}
#self-check{font-size:12px;color:#6b7280;padding:0 24px 16px}
";

const SCRIPT: &str = r#"
(function () {
  var problems = [];
  window.addEventListener('error', function (e) { problems.push('error: ' + (e.message || e.type)); }, true);
  var sections = document.querySelectorAll('section.protocol');
  var pictures = 0;
  sections.forEach(function (s) {
    var name = s.getAttribute('data-protocol');
    var roles = parseInt(s.getAttribute('data-machines'), 10);
    var machines = s.querySelectorAll('figure.machine > svg').length;
    if (machines !== roles) problems.push(name + ': ' + machines + ' machine pictures for ' + roles + ' machines');
    if (s.getAttribute('data-chart') === 'yes' && s.querySelectorAll('figure.chart > svg').length !== 1)
      problems.push(name + ': the sequence chart is missing');
  });
  document.querySelectorAll('figure > svg').forEach(function (svg) {
    pictures += 1;
    var box = svg.getBBox();
    if (!(box.width > 0 && box.height > 0)) problems.push('an empty picture: ' + svg.parentNode.getAttribute('data-name'));
  });
  var out = document.getElementById('self-check');
  out.setAttribute('data-status', problems.length ? 'failed' : 'ok');
  out.setAttribute('data-pictures', String(pictures));
  out.setAttribute('data-problems', problems.join('; '));
  out.textContent = 'Self-check: ' + sections.length + ' protocols, ' + pictures + ' pictures' +
    (problems.length ? ' — problems: ' + problems.join('; ') : ', all drawn.');
})();
"#;

fn status_class(status: Status) -> (&'static str, &'static str) {
    match status {
        Status::Holds => ("holds", "holds"),
        Status::Fails => ("fails", "fails"),
        Status::Unknown => ("unknown", "unknown"),
    }
}

/// A figure with a unique id prefix for the SVG's ids.
fn figure(out: &mut String, class: &str, name: &str, caption: &str, svg: &str, id: &mut usize) {
    *id += 1;
    let _ = writeln!(
        out,
        "<figure class=\"{class}\" data-name=\"{}\"><figcaption>{}</figcaption>{}</figure>",
        escape(name),
        escape(caption),
        inline(svg, &format!("p{id}-"))
    );
}

/// The source, one numbered line each, lines under a diagnostic highlighted and its
/// message below the line where it starts; each secondary label of a diagnostic on its
/// own line below the line where the label starts, its lines marked.
fn source_listing(out: &mut String, source: &str, notes: &[Note]) {
    let lines: Vec<&str> = source.split('\n').collect();
    // The workspace's one line rule, one pass over the source for every note.
    let index = mpst_fsm::text::LineIndex::new(source);
    let lines_of = |start: usize, end: usize| {
        let first = index.line(start);
        let last = index.line(end.max(start + 1) - 1).max(first);
        (first, last)
    };
    let spans: Vec<(usize, usize, &Note)> = notes
        .iter()
        .map(|n| {
            let (first, last) = lines_of(n.start, n.end);
            (first, last, n)
        })
        .collect();
    // Each secondary label, with the line of the diagnostic it belongs to.
    let secondaries: Vec<(usize, usize, &Secondary, &Note, usize)> = spans
        .iter()
        .flat_map(|&(line, _, note)| {
            note.labels.iter().map(move |label| {
                let (first, last) = lines_of(label.start, label.end);
                (first, last, label, note, line)
            })
        })
        .collect();
    out.push_str("<pre class=\"source\">");
    for (i, line) in lines.iter().enumerate() {
        let covering: Vec<&Note> = spans
            .iter()
            .filter(|(a, b, _)| *a <= i && i <= *b)
            .map(|(_, _, n)| *n)
            .collect();
        let marked = secondaries.iter().any(|(a, b, ..)| *a <= i && i <= *b);
        let class = match covering
            .iter()
            .map(|n| n.severity)
            .min_by_key(|s| *s != Severity::Error)
        {
            None if marked => "line marked",
            None => "line",
            Some(Severity::Error) => "line flagged",
            Some(Severity::Warning) => "line flagged warning",
        };
        let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(line));
        for (_, _, note) in spans.iter().filter(|(a, _, _)| *a == i) {
            let (class, word) = match note.severity {
                Severity::Error => ("diag", "error"),
                Severity::Warning => ("diag warning", "warning"),
            };
            let _ = write!(
                out,
                "<span class=\"{class}\">{word}: {}</span>",
                escape(&note.message)
            );
        }
        for (_, _, label, note, at) in secondaries.iter().filter(|(a, ..)| *a == i) {
            let word = match note.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let _ = write!(
                out,
                "<span class=\"diag secondary\">↑ {} (for the {word} on line {})</span>",
                escape(&label.message),
                at + 1
            );
        }
    }
    out.push_str("</pre>\n");
}

fn section(out: &mut String, s: &Section, id: &mut usize) {
    let _ = writeln!(
        out,
        "<section class=\"protocol\" data-protocol=\"{}\" data-machines=\"{}\" data-chart=\"{}\">\n<h2>protocol {}</h2>",
        escape(&s.name),
        s.machines.len(),
        if s.chart.is_some() { "yes" } else { "no" },
        escape(&s.name)
    );
    out.push_str("<table class=\"verdicts\">\n");
    for v in &s.verdicts {
        let (class, word) = status_class(v.status);
        let _ = write!(
            out,
            "<tr class=\"{class}\"><td><span class=\"badge\">{word}</span></td><td><b>{}</b></td><td>{}",
            escape(&v.check),
            escape(&v.summary)
        );
        if !v.details.is_empty() {
            let _ = write!(
                out,
                "<details{}><summary>explanation</summary><pre>{}</pre></details>",
                if v.status == Status::Holds {
                    ""
                } else {
                    " open"
                },
                escape(&v.details)
            );
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</table>\n");
    if let Some(chart) = &s.chart {
        out.push_str("<h3>Global sequence chart</h3>\n<div class=\"pictures\">");
        figure(out, "chart", &s.name, &chart.caption, &chart.svg, id);
        out.push_str("</div>\n");
    }
    if !s.counterexamples.is_empty() {
        out.push_str("<h3>What goes wrong</h3>\n");
        out.push_str(&counterexamples_legend());
        out.push_str("<div class=\"pictures\">");
        for c in &s.counterexamples {
            figure(out, "counterexample", &s.name, &c.caption, &c.svg, id);
        }
        out.push_str("</div>\n");
    }
    if !s.machines.is_empty() {
        out.push_str("<h3>Machines</h3>\n");
        out.push_str(&machines_legend());
        out.push_str("<div class=\"pictures\">");
        for m in &s.machines {
            let caption = match &m.optimised {
                None => format!("role {} (projection)", m.role),
                Some(file) => format!("role {} (optimised, {file})", m.role),
            };
            figure(out, "machine", &m.role, &caption, &m.svg, id);
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

/// The report as one HTML document.
pub fn report_html(report: &Report) -> String {
    let mut out =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<title>mpst report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        escape(&report.file)
    );
    let errors = report
        .notes
        .iter()
        .filter(|n| n.severity == Severity::Error)
        .count();
    let _ = writeln!(
        out,
        "<header><h1>{}</h1><p>{} protocol{}, {} error{} in the source</p></header>\n<main>",
        escape(&report.file),
        report.sections.len(),
        if report.sections.len() == 1 { "" } else { "s" },
        errors,
        if errors == 1 { "" } else { "s" }
    );
    let mut id = 0;
    for s in &report.sections {
        section(&mut out, s, &mut id);
    }
    out.push_str("<section class=\"source-file\"><h2>Source</h2>\n");
    source_listing(&mut out, &report.source, &report.notes);
    out.push_str("</section>\n</main>\n<footer id=\"self-check\" data-status=\"not run\">Self-check did not run (scripts are off).</footer>\n");
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = "<?xml version=\"1.0\"?><svg><path id=\"arrow0\"/></svg>";

    fn report() -> Report {
        Report {
            file: "a<b>.scr".into(),
            source: "line one\nbad line\nlast".into(),
            notes: vec![Note {
                severity: Severity::Error,
                start: 9,
                end: 12,
                message: "no <good>".into(),
                labels: vec![Secondary {
                    start: 0,
                    end: 4,
                    message: "because of <this>".into(),
                }],
            }],
            sections: vec![Section {
                name: "P".into(),
                verdicts: vec![Verdict {
                    check: "k-MC".into(),
                    status: Status::Fails,
                    summary: "fails".into(),
                    details: "why & how".into(),
                }],
                chart: Some(Figure {
                    caption: "chart".into(),
                    svg: SVG.into(),
                }),
                machines: vec![
                    Machine {
                        role: "A".into(),
                        svg: SVG.into(),
                        optimised: None,
                    },
                    Machine {
                        role: "A".into(),
                        svg: SVG.into(),
                        optimised: Some("a.dot".into()),
                    },
                ],
                counterexamples: vec![],
            }],
        }
    }

    #[test]
    fn every_picture_is_inline_with_ids_of_its_own() {
        let html = report_html(&report());
        assert_eq!(html.matches("<figure class=\"machine\"").count(), 2);
        assert_eq!(html.matches("<figure class=\"chart\"").count(), 1);
        assert!(!html.contains("<?xml"), "no XML declaration inside HTML");
        for id in ["p1-arrow0", "p2-arrow0", "p3-arrow0"] {
            assert_eq!(html.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
        }
        assert!(html.contains("data-machines=\"2\" data-chart=\"yes\""));
        assert!(html.contains("role A (optimised, a.dot)"));
    }

    #[test]
    fn text_is_escaped_and_diagnostics_sit_under_their_line() {
        let html = report_html(&report());
        assert!(html.contains("<h1>a&lt;b&gt;.scr</h1>"));
        assert!(html.contains("why &amp; how"));
        assert!(html.contains(
            "<span class=\"line flagged\">bad line</span><span class=\"diag\">error: no &lt;good&gt;</span>"
        ));
        assert!(html.contains("<span class=\"line\">last</span>"));
        assert!(
            html.contains("<details open>"),
            "a failing verdict shows its explanation"
        );
    }

    #[test]
    fn a_secondary_label_sits_on_its_own_line_under_its_own_line() {
        let html = report_html(&report());
        // Under line 1, where the label points, not under line 2 with the error.
        assert!(
            html.contains(
                "<span class=\"line marked\">line one</span><span class=\"diag secondary\">\
                 ↑ because of &lt;this&gt; (for the error on line 2)</span><span class=\"line flagged\">"
            ),
            "{html}"
        );
        assert!(html.contains(
            "<span class=\"diag\">error: no &lt;good&gt;</span><span class=\"line\">last</span>"
        ));
    }

    #[test]
    fn the_machines_have_a_legend_of_their_colours() {
        let html = report_html(&report());
        let legend = html
            .split("<h3>Machines</h3>\n")
            .nth(1)
            .and_then(|rest| rest.split("</p>").next())
            .expect("a legend after the heading");
        // The colours the machine pictures draw sends and receives in.
        let picture = crate::fsm::fsm_svg(&{
            let mut fsm = mpst_fsm::Fsm::new("A");
            let (a, b) = (fsm.add_state(), fsm.add_state());
            let m = mpst_fsm::Message::new("m");
            fsm.add_transition(0, mpst_fsm::Action::send("B", m.clone()), a)
                .unwrap();
            fsm.add_transition(a, mpst_fsm::Action::receive("B", m), b)
                .unwrap();
            fsm
        });
        for (colour, meaning) in [("#1f4e9e", "send"), ("#1d7a3a", "receive")] {
            assert!(picture.contains(colour), "{colour} in {picture}");
            assert!(
                legend.contains(&format!("2px solid {colour}\"></i>{meaning}")),
                "{legend}"
            );
        }
        assert!(legend.contains("initial state") && legend.contains("final state"));
    }

    #[test]
    fn spans_past_the_end_do_not_panic() {
        let mut r = report();
        r.notes[0].start = 1000;
        r.notes[0].end = 2000;
        let html = report_html(&r);
        assert!(html.contains("<span class=\"line flagged\">last</span>"));
    }
}
