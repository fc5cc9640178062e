//! Shared helpers of the example protocols.
