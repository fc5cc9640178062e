//! Code generation: communicating FSMs to the Rust session API of the `mpst` runtime.

#![warn(missing_docs)]
