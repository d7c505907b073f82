//! Cycle counting: the TSC on x86-64, nanoseconds elsewhere (then "cycles" are ns and the
//! reported frequency is 1 GHz). The one clock of every bitweave measurement: the CLI's
//! bench, Python's `bitweave.bench()`, and both peers.

use std::time::{Duration, Instant};

/// The counter now.
#[cfg(target_arch = "x86_64")]
pub fn now() -> u64 {
    // SAFETY: rdtsc is available on every x86-64 CPU and has no memory effects.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// The counter now.
#[cfg(not(target_arch = "x86_64"))]
pub fn now() -> u64 {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Ticks of [`now`] per second, measured against the wall clock.
pub fn tsc_hz() -> f64 {
    let (t0, c0) = (Instant::now(), now());
    while t0.elapsed() < Duration::from_millis(50) {}
    let (t1, c1) = (Instant::now(), now());
    (c1 - c0) as f64 / (t1 - t0).as_secs_f64()
}

/// Ticks per call of `f`, calling it for at least `budget` (and at least twice): the
/// fastest of the batches that ran at full size (below).
///
/// Calls go in batches, the clock read once per batch: reading it costs ~40 ns
/// (measured on Zen 3), more than a 16-byte AES call, and would flatten every
/// small-message ratio towards 1. Batches double until one takes 1 % of the budget; from
/// then on each batch is a sample, and the fastest sample is the figure. On a shared
/// machine the host takes the core away now and then, and a mean over the whole budget
/// carries those pauses into one side of a ratio and not the other: the same row moved
/// by up to 1.8× between runs (Xeon family 6 model 207 under KVM, 2026-12-01), where the
/// fastest sample is what the code does when it has the core.
pub fn cycles_per_call(f: &mut dyn FnMut(), budget: Duration) -> f64 {
    // The warm-up call counts as the measurement when one call outlasts the budget
    // (a serial mode on a wide bitsliced backend), so slow rows stay quick.
    let (start, c0) = (Instant::now(), now());
    f();
    if start.elapsed() >= budget {
        return (now() - c0) as f64;
    }
    let start = Instant::now();
    let (mut calls, mut batch) = (0u64, 1u64);
    let mut fastest = f64::INFINITY;
    loop {
        let batch_start = Instant::now();
        let c0 = now();
        for _ in 0..batch {
            f();
        }
        let ticks = now() - c0;
        calls += batch;
        if batch_start.elapsed() < budget / 100 {
            batch *= 2;
        } else {
            fastest = fastest.min(ticks as f64 / batch as f64);
        }
        if calls >= 2 && fastest.is_finite() && start.elapsed() >= budget {
            return fastest;
        }
    }
}
