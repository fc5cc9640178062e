//! One module per subcommand; each exposes `Args` (clap) and `run`.

pub mod certs;
pub mod chart;
pub mod check;
pub mod completions;
pub mod family;
pub mod generate;
pub mod kmc;
pub mod new;
pub mod project;
pub mod report;
pub mod subtype;
