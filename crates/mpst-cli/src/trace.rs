//! `--trace-format`: how a run that goes wrong is printed (a subtyping refutation or a
//! k-MC counterexample): numbered text, a Mermaid `sequenceDiagram` or an SVG chart
//! (`mpst_viz::run_chart`, the chart `mpst report` draws).

use mpst_fsm::format::write_sequence_mermaid;
use mpst_fsm::kmc::Step;

/// The format of runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormat {
    /// Numbered steps in the report (the default).
    Text,
    /// A Mermaid `sequenceDiagram` on stdout; the report goes to stderr.
    Mermaid,
    /// A standalone SVG message sequence chart on stdout; the report goes to stderr.
    Svg,
}

impl TraceFormat {
    /// The chart of `trace` ending with `outcome`, or `None` for [`TraceFormat::Text`].
    pub fn chart(self, roles: &[String], trace: &[Step], outcome: &str) -> Option<String> {
        match self {
            TraceFormat::Text => None,
            TraceFormat::Mermaid => Some(write_sequence_mermaid(roles, trace, outcome)),
            TraceFormat::Svg => Some(mpst_viz::run_chart(roles, trace, outcome)),
        }
    }
}
