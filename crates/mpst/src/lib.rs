//! Asynchronous multiparty session types for Rust.

#![warn(missing_docs)]
