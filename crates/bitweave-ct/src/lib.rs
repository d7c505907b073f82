//! Constant-time checks for bitweave's constant-time backends.
//!
//! - [`ctgrind`]: every secret marked undefined for valgrind memcheck, which then reports
//!   each branch and memory address that depends on a secret (the backends valgrind can
//!   execute: portable, AVX2, AES-NI).
//! - [`ttest`]: a dudect-style timing test (fixed vs random secrets, Welch's t) for the
//!   backends valgrind cannot execute (AVX-512, VAES, GFNI).
//! - [`leaky`]: deliberately leaky functions that both checks must flag.

pub mod allow;
pub mod ctgrind;
pub mod leaky;
pub mod probes;
pub mod runner;
pub mod ttest;
pub mod vg;
pub mod vgxml;
