//! The evaluation binary (placeholder until the report lands).

fn main() {}
