//! Pictures of multiparty session types, as pure functions from the toolchain's data
//! to text: a role's FSM as SVG ([`fsm_svg`]), a global protocol or a run
//! as a sequence chart in SVG ([`chart`]), and a self-contained HTML report assembled from
//! such parts ([`html`]). Nothing here touches the filesystem.

#![warn(missing_docs)]

pub mod fsm;
pub mod svg;

pub use fsm::fsm_svg;
pub mod chart;

pub use chart::{global_chart, run_chart};
pub mod html;

pub use html::report_html;
