//! Procedural macros of `mpst`: `derive(Role)`, `derive(Roles)`, `derive(Message)`, `#[session]`.
