//! A dudect-style timing test (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant
//! time?", 2017) for the paths valgrind cannot execute (AVX-512, VAES, GFNI).
//!
//! Two input classes — one fixed input, and fresh random inputs — are interleaved in a
//! random order; every call is timed with `rdtsc` between `lfence`s. Welch's t compares
//! the two classes' mean times on all samples and on samples cropped at 100 percentiles
//! (dudect's `1 - 0.5^(10(k+1)/100)`, set from a discarded first batch), since a leak
//! often hides under the slow tail that scheduling and interrupts add on a shared
//! machine.
//!
//! A test flags a leak only when the difference is both *clear* (|t| above
//! [`THRESHOLD`]) and *large enough to be software* (at least [`MIN_EFFECT_CYCLES`] and
//! [`MIN_EFFECT_FRACTION`] of the mean). Statistical clarity alone is not enough: with a
//! million samples per class, |t| resolves a fraction of a cycle, and the machine itself
//! makes differences of that size that depend on the data (power and frequency effects of
//! the switching activity, what ran just before). Those are outside every software
//! constant-time guarantee; the smallest software leak, one mispredicted secret branch
//! or one secret-indexed line the attacker has evicted, costs several times more (the
//! planted controls in [`crate::probes`] measure it on every run).

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, RngCore};

/// |t| above which a difference is clear: dudect's "definitely not constant time" bound.
/// Measured on this shared 2-core VM (2 s per target): 412 runs of constant-time
/// targets gave median 1.7 and maximum 4.9; the planted leaks give 800-3,000 in 1 s.
pub const THRESHOLD: f64 = 10.0;

/// The smallest difference of mean cycles that counts as a leak. The smallest planted
/// software leak, one secret branch the predictor cannot learn (`leak/branch`), costs
/// about half a misprediction on average, MIN_EFFECT_CYCLES / 0.4 or more on the CPUs
/// this runs on; the machine's data-dependent effects seen on constant-time VAES code were
/// 1-2 cycles (0.1 %) of a 1,550-cycle call.
pub const MIN_EFFECT_CYCLES: f64 = 4.0;

/// The smallest difference, as a fraction of the mean, that counts as a leak: machine
/// effects (frequency, power) scale with the length of the call, so a long call needs a
/// proportionally larger difference (0.25 %, twice the largest machine effect seen).
pub const MIN_EFFECT_FRACTION: f64 = 0.0025;

/// The smallest difference of means in cycles that counts as a leak for a call of `mean`
/// cycles.
pub fn min_effect(mean: f64) -> f64 {
    MIN_EFFECT_CYCLES.max(MIN_EFFECT_FRACTION * mean)
}

/// Samples per class a test needs before its t counts (dudect's 10,000 in all).
pub const MIN_SAMPLES: u64 = 5_000;

/// Samples per batch: inputs are prepared before a batch, outside the timed calls.
const BATCH: usize = 512;

/// Cropping percentiles (dudect's 100).
const CROPS: usize = 100;

/// An operation under test.
pub trait Probe {
    /// Prepared per call, outside the timing (e.g. a ciphertext to decrypt).
    type Input;
    /// Bytes of class input.
    fn input_len(&self) -> usize;
    /// The fixed class's input.
    fn fixed(&self) -> Vec<u8>;
    /// Turns class input bytes into a call's input (not timed).
    fn prepare(&self, bytes: &[u8]) -> Self::Input;
    /// The timed call.
    fn run(&mut self, input: &Self::Input);
    /// What an attacker sharing the core does between calls, untimed (e.g. evicting part
    /// of a table the target might use). Nothing by default.
    fn between_calls(&mut self) {}
}

/// Running mean and variance (Welford) of one class.
#[derive(Clone, Copy, Debug, Default)]
struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }
    fn var(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }
}

/// Welch's t of two classes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Welch {
    c: [Moments; 2],
}

impl Welch {
    pub fn push(&mut self, class: usize, x: f64) {
        self.c[class].push(x);
    }
    /// Samples of the smaller class.
    pub fn n(&self) -> u64 {
        self.c[0].n.min(self.c[1].n)
    }
    /// Standard error of the difference of means.
    pub fn se(&self) -> f64 {
        let [a, b] = self.c;
        (a.var() / a.n.max(1) as f64 + b.var() / b.n.max(1) as f64).sqrt()
    }
    /// Welch's t: difference of means over its standard error (0 without data).
    pub fn t(&self) -> f64 {
        let [a, b] = self.c;
        let se = self.se();
        if se == 0.0 || a.n < 2 || b.n < 2 {
            0.0
        } else {
            (a.mean - b.mean) / se
        }
    }
    /// Mean of a class.
    pub fn mean(&self, class: usize) -> f64 {
        self.c[class].mean
    }
    /// Difference of the class means (fixed minus random).
    pub fn effect(&self) -> f64 {
        self.c[0].mean - self.c[1].mean
    }
    /// Whether this test shows a leak: clear (|t| > THRESHOLD) and large enough to be
    /// software (|effect| ≥ [`min_effect`] of the mean).
    pub fn flags(&self) -> bool {
        let mean = (self.c[0].mean + self.c[1].mean) / 2.0;
        self.t().abs() > THRESHOLD && self.effect().abs() >= min_effect(mean)
    }
}

/// The outcome of one target.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// Largest |t| over the uncropped and cropped tests with enough samples.
    pub max_t: f64,
    /// Which test gave it: `None` uncropped, `Some(k)` cropped at percentile k.
    pub crop: Option<usize>,
    /// That test's difference of class means, in cycles.
    pub effect: f64,
    /// Whether any test flagged a leak (clear and large enough; see [`Welch::flags`]).
    pub flagged: bool,
    /// The largest |effect| among the tests whose |t| was over THRESHOLD (0 if none):
    /// how close a clear difference came to [`min_effect`].
    pub clear_effect: f64,
    /// Samples per class (uncropped).
    pub samples: u64,
    /// Mean cycles of the fixed and random classes (uncropped).
    pub mean_cycles: [f64; 2],
    /// The smallest difference of mean cycles that would have crossed the threshold in
    /// the most sensitive test (THRESHOLD × its standard error): the run's resolution.
    pub resolution: f64,
    pub seconds: f64,
}

impl Verdict {
    pub fn leaks(&self) -> bool {
        self.flagged
    }
    /// Whether enough samples were taken for the verdict to mean anything (a short run
    /// is no pass).
    pub fn conclusive(&self) -> bool {
        self.samples >= MIN_SAMPLES
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let crop = self
            .crop
            .map_or("uncropped".to_string(), |k| format!("crop {k}"));
        write!(
            f,
            "max |t| {:.2} ({crop}, {:+.1} cycles), largest clear effect {:.1} of {:.1} \
             needed, {} samples/class, {:.0} vs {:.0} cycles, resolution {:.1} cycles, {:.1} s",
            self.max_t,
            self.effect,
            self.clear_effect,
            min_effect((self.mean_cycles[0] + self.mean_cycles[1]) / 2.0),
            self.samples,
            self.mean_cycles[0],
            self.mean_cycles[1],
            self.resolution,
            self.seconds
        )
    }
}

/// Cycle counter, serialised so the call under test cannot drift across it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn cycles() -> u64 {
    use std::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: lfence and rdtsc are part of x86-64's baseline (SSE2, TSC).
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn cycles() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// One batch: random classes, prepared inputs, timed calls.
fn batch<P: Probe>(p: &mut P, fixed: &[u8], rng: &mut StdRng, out: &mut Vec<(usize, u64)>) {
    let mut bytes = vec![0u8; p.input_len()];
    let mut classes = Vec::with_capacity(BATCH);
    let mut inputs = Vec::with_capacity(BATCH);
    for _ in 0..BATCH {
        let class = rng.gen_range(0..2usize);
        if class == 0 {
            bytes.copy_from_slice(fixed);
        } else {
            rng.fill_bytes(&mut bytes);
        }
        classes.push(class);
        inputs.push(p.prepare(&bytes));
    }
    out.clear();
    for (class, input) in classes.into_iter().zip(&inputs) {
        p.between_calls();
        let t0 = cycles();
        p.run(input);
        let t1 = cycles();
        out.push((class, t1.wrapping_sub(t0)));
    }
}

/// Runs `p` for about `budget` and returns the verdict.
pub fn measure<P: Probe>(p: &mut P, budget: Duration, rng: &mut StdRng) -> Verdict {
    let start = Instant::now();
    let fixed = p.fixed();
    let mut samples = Vec::with_capacity(BATCH);
    // Warm-up batch (caches, predictors, lazy initialisation): sets the crop points.
    batch(p, &fixed, rng, &mut samples);
    let mut sorted: Vec<u64> = samples.iter().map(|s| s.1).collect();
    sorted.sort_unstable();
    let crops: Vec<u64> = (0..CROPS)
        .map(|k| {
            let q = 1.0 - 0.5f64.powf(10.0 * (k + 1) as f64 / CROPS as f64);
            sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)]
        })
        .collect();
    let mut full = Welch::default();
    let mut cropped = vec![Welch::default(); CROPS];
    // The budget, stretched up to 4x when a slow target on a busy machine has not yet
    // reached the minimum sample count.
    while start.elapsed() < budget || (full.n() < MIN_SAMPLES && start.elapsed() < 4 * budget) {
        batch(p, &fixed, rng, &mut samples);
        for &(class, t) in &samples {
            full.push(class, t as f64);
            for (w, &c) in cropped.iter_mut().zip(&crops) {
                if t < c {
                    w.push(class, t as f64);
                }
            }
        }
    }
    let mut max_t = 0.0;
    let mut crop = None;
    let mut effect = 0.0;
    let mut flagged = false;
    let mut clear_effect = 0.0f64;
    let mut resolution = f64::INFINITY;
    let tests =
        std::iter::once((None, &full)).chain(cropped.iter().enumerate().map(|(k, w)| (Some(k), w)));
    for (k, w) in tests {
        if w.n() < MIN_SAMPLES {
            continue;
        }
        resolution = resolution.min(THRESHOLD * w.se());
        flagged |= w.flags();
        if w.t().abs() > THRESHOLD {
            clear_effect = clear_effect.max(w.effect().abs());
        }
        if w.t().abs() > max_t {
            max_t = w.t().abs();
            crop = k;
            effect = w.effect();
        }
    }
    Verdict {
        max_t,
        crop,
        effect,
        flagged,
        clear_effect,
        samples: full.n(),
        mean_cycles: [full.mean(0), full.mean(1)],
        resolution,
        seconds: start.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_t_of_known_samples() {
        let mut w = Welch::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            w.push(0, x);
        }
        for x in [2.0, 4.0, 6.0, 8.0] {
            w.push(1, x);
        }
        // Means 2.5 and 5, variances 5/3 and 20/3, n = 4: t = -2.5 / sqrt(25/12).
        assert!((w.t() + 2.5 / (25.0f64 / 12.0).sqrt()).abs() < 1e-12);
        assert_eq!(w.n(), 4);
        assert_eq!(w.effect(), -2.5);
    }

    /// Two classes a constant `d` cycles apart with a little spread.
    fn apart(d: f64, base: f64) -> Welch {
        let mut w = Welch::default();
        for i in 0..10_000 {
            let jitter = (i % 7) as f64 * 0.1;
            w.push(0, base + d + jitter);
            w.push(1, base + jitter);
        }
        w
    }

    #[test]
    fn a_clear_but_tiny_difference_is_the_machine_not_a_leak() {
        // 1 cycle in 1,550: |t| is huge, the effect below the floor.
        let w = apart(1.0, 1550.0);
        assert!(w.t().abs() > 100.0);
        assert!(!w.flags());
        // 3.8 cycles of a 1,550-cycle call is under 0.25 % (3.875).
        assert!(!apart(3.8, 1550.0).flags());
    }

    #[test]
    fn a_clear_difference_of_software_size_is_a_leak() {
        assert!(apart(4.0, 50.0).flags(), "4 cycles of a short call");
        assert!(apart(-4.0, 50.0).flags(), "either sign");
        assert!(apart(4.0, 1550.0).flags(), "4 cycles of 1,550 (0.26 %)");
        assert!(apart(30.0, 10_000.0).flags(), "0.3 % of a long call");
        assert!(!apart(20.0, 10_000.0).flags(), "0.2 % of a long call");
    }

    #[test]
    fn a_large_difference_lost_in_noise_is_not_a_leak() {
        let mut w = Welch::default();
        for i in 0..100 {
            let noise = if i % 2 == 0 { 1000.0 } else { -1000.0 };
            w.push(0, 100.0 + 20.0 + noise);
            w.push(1, 100.0 - noise);
        }
        assert!(w.t().abs() < THRESHOLD);
        assert!(!w.flags());
    }
}
