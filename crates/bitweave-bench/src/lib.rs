//! bitweave's benchmark: one clock ([`clock`]), one measurement routine for block-cipher
//! rows ([`block::measure`]), π-Cipher rows and AES-GCM rows, the peers measured in the same run on the
//! same buffers (OpenSSL's libcrypto and libgcrypt, each behind its cargo feature), the
//! MX-1 paper's table layout, the split sweep, JSON and plots.
//!
//! Cycles are TSC reference cycles (`rdtsc`), the same clock for bitweave and its peers;
//! the TSC frequency is calibrated against the wall clock and printed. Each figure is the
//! best of several alternating measurements, each the fastest of its batches of calls
//! ([`clock::cycles_per_call`]), which keeps a shared, noisy machine from favouring
//! either side. The CLI's `bitweave bench` and Python's `bitweave.bench()` are
//! thin front ends over this crate.
//!
//! Layers run one way: `clock`, `peers` → `block`, `aead`, `gcm` (rows) → `tables`,
//! `split_sweep`, `plot` → `run`.

pub mod aead;
mod aligned;
pub mod args;
pub mod block;
pub mod clock;
pub mod gcm;
pub mod peers;
#[cfg(feature = "plot")]
mod plot;
mod run;
pub mod split_sweep;
pub mod tables;

pub use args::BenchArgs;
pub use block::{measure, Case, Row, Setup};
pub use run::run;
