//! What this CPU can run: feature detection once (cached), and the tier cap.
//!
//! Every backend asks here, never the standard library's detection directly, so one
//! setting lowers every cipher and π-Cipher alike. `BITWEAVE_CPU` caps what detection
//! reports, as OpenSSL's `OPENSSL_ia32cap` does, so each tier's selection, kernels and
//! figures can be checked on the biggest CPU at hand:
//!
//! | arch | tier | reports at most |
//! |---|---|---|
//! | both | `portable` | nothing beyond the architecture's baseline (SSE2 on x86-64; on ARM64 not even NEON, so the scalar code is what runs) |
//! | x86-64 | `aesni` | + SSSE3, SSE4.1, AES-NI, PCLMULQDQ (no AVX2) |
//! | x86-64 | `avx2-novaes` | + AVX2 (no VAES, no VPCLMULQDQ: the Intel Haswell to Cascade Lake and AMD Zen 1/2 class) |
//! | x86-64 | `avx2` | + VAES-256, VPCLMULQDQ (no AVX-512, no GFNI: the AMD Zen 3 class) |
//! | x86-64 | `avx2-gfni` | + GFNI (no AVX-512: the Intel Alder Lake to Arrow Lake client and Sierra Forest E-core server class) |
//! | x86-64 | `avx512` | everything the CPU has (the default) |
//! | ARM64 | `neon` | + NEON (Advanced SIMD), without the crypto extension |
//! | ARM64 | `crypto` | + the ARMv8 crypto extension's AES instructions (the default) |
//!
//! Each architecture takes only its own tier names; another's is an unknown value.
//! A cap only lowers: it never reports a feature the CPU lacks, so every `unsafe` entry
//! into a `#[target_feature]` function guarded by [`has`] stays sound. An unknown value
//! is an error at the first backend selection ([`check`]); until it is fixed detection
//! reports the portable tier, the one choice that is safe everywhere.
//!
//! `BITWEAVE_TUNING=intel|amd` picks whose *measured kernel choices* the backends take
//! where Intel and AMD cores differ in which of two equally correct kernels is faster
//! (the default: this CPU's vendor; see [`tuning`]). It changes speed, never results or
//! features, so each vendor's choices can be run, timed and checked on either vendor's
//! CPU: the constant-time check runs the AMD choices under valgrind this way, whose
//! synthetic CPU reports itself as Intel.
//!
//! This module is a leaf: it imports nothing from the crate.

use std::fmt;
use std::sync::OnceLock;

/// Environment variable holding the tier cap.
pub const CPU_ENV: &str = "BITWEAVE_CPU";

/// Environment variable naming whose measured kernel choices to take ([`tuning`]).
pub const TUNING_ENV: &str = "BITWEAVE_TUNING";

/// A CPU feature a backend may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    Sse2,
    Ssse3,
    Sse41,
    Aes,
    Pclmulqdq,
    Avx2,
    Vaes,
    Vpclmulqdq,
    Gfni,
    Avx512f,
    Avx512bw,
    Avx512vl,
    Avx512vbmi,
    Avx512vbmi2,
    /// `vpshufbitqmb` (bit lookups by byte indices): DES's byte-sliced S-boxes.
    Avx512bitalg,
    /// ARM64 Advanced SIMD.
    Neon,
    /// ARM64's AES instructions (AESE/AESD/AESMC/AESIMC), part of the crypto extension.
    ArmAes,
}

impl Feature {
    pub const ALL: [Feature; 17] = [
        Feature::Sse2,
        Feature::Ssse3,
        Feature::Sse41,
        Feature::Aes,
        Feature::Pclmulqdq,
        Feature::Avx2,
        Feature::Vaes,
        Feature::Vpclmulqdq,
        Feature::Gfni,
        Feature::Avx512f,
        Feature::Avx512bw,
        Feature::Avx512vl,
        Feature::Avx512vbmi,
        Feature::Avx512vbmi2,
        Feature::Avx512bitalg,
        Feature::Neon,
        Feature::ArmAes,
    ];

    /// The name as `is_x86_feature_detected!`, `is_aarch64_feature_detected!` and
    /// `target_feature` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Sse2 => "sse2",
            Feature::Ssse3 => "ssse3",
            Feature::Sse41 => "sse4.1",
            Feature::Aes => "aes",
            Feature::Pclmulqdq => "pclmulqdq",
            Feature::Avx2 => "avx2",
            Feature::Vaes => "vaes",
            Feature::Vpclmulqdq => "vpclmulqdq",
            Feature::Gfni => "gfni",
            Feature::Avx512f => "avx512f",
            Feature::Avx512bw => "avx512bw",
            Feature::Avx512vl => "avx512vl",
            Feature::Avx512vbmi => "avx512vbmi",
            Feature::Avx512vbmi2 => "avx512vbmi2",
            Feature::Avx512bitalg => "avx512bitalg",
            Feature::Neon => "neon",
            Feature::ArmAes => "aes",
        }
    }

    /// The lowest tier that may report this feature.
    pub fn tier(self) -> Tier {
        match self {
            Feature::Sse2 => Tier::Portable,
            Feature::Ssse3 | Feature::Sse41 | Feature::Aes | Feature::Pclmulqdq => Tier::Aesni,
            Feature::Avx2 => Tier::Avx2NoVaes,
            Feature::Vaes | Feature::Vpclmulqdq => Tier::Avx2,
            Feature::Gfni => Tier::Avx2Gfni,
            Feature::Avx512f
            | Feature::Avx512bw
            | Feature::Avx512vl
            | Feature::Avx512vbmi
            | Feature::Avx512vbmi2
            | Feature::Avx512bitalg => Tier::Avx512,
            Feature::Neon => Tier::Neon,
            Feature::ArmAes => Tier::Crypto,
        }
    }

    /// The architecture the feature belongs to: `x86-64` or `ARM64`.
    pub fn arch(self) -> &'static str {
        match self {
            Feature::Neon | Feature::ArmAes => "ARM64",
            _ => "x86-64",
        }
    }

    /// Whether the feature belongs to the architecture this build is for.
    pub fn native(self) -> bool {
        let here = if cfg!(target_arch = "aarch64") {
            "ARM64"
        } else {
            "x86-64"
        };
        self.arch() == here
    }

    /// Whether the CPU itself has the feature (ignoring the cap).
    fn detect(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as d;
            match self {
                Feature::Sse2 => d!("sse2"),
                Feature::Ssse3 => d!("ssse3"),
                Feature::Sse41 => d!("sse4.1"),
                Feature::Aes => d!("aes"),
                Feature::Pclmulqdq => d!("pclmulqdq"),
                Feature::Avx2 => d!("avx2"),
                Feature::Vaes => d!("vaes"),
                Feature::Vpclmulqdq => d!("vpclmulqdq"),
                Feature::Gfni => d!("gfni"),
                Feature::Avx512f => d!("avx512f"),
                Feature::Avx512bw => d!("avx512bw"),
                Feature::Avx512vl => d!("avx512vl"),
                Feature::Avx512vbmi => d!("avx512vbmi"),
                Feature::Avx512vbmi2 => d!("avx512vbmi2"),
                Feature::Avx512bitalg => d!("avx512bitalg"),
                Feature::Neon | Feature::ArmAes => false,
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            use std::arch::is_aarch64_feature_detected as d;
            match self {
                Feature::Neon => d!("neon"),
                Feature::ArmAes => d!("aes"),
                _ => false,
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            false
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A class of CPU; see the module doc for what each reports. The order is lowest first
/// within an architecture (the x86-64 and ARM64 tiers are never compared).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    Portable,
    Aesni,
    Avx2NoVaes,
    Avx2,
    Avx2Gfni,
    Avx512,
    Neon,
    Crypto,
}

impl Tier {
    /// This architecture's tiers, lowest first.
    #[cfg(not(target_arch = "aarch64"))]
    pub const ALL: &'static [Tier] = &[
        Tier::Portable,
        Tier::Aesni,
        Tier::Avx2NoVaes,
        Tier::Avx2,
        Tier::Avx2Gfni,
        Tier::Avx512,
    ];
    /// This architecture's tiers, lowest first.
    #[cfg(target_arch = "aarch64")]
    pub const ALL: &'static [Tier] = &[Tier::Portable, Tier::Neon, Tier::Crypto];

    /// The highest tier here: what detection reports with no cap.
    pub fn top() -> Tier {
        *Tier::ALL.last().expect("every architecture has a tier")
    }

    /// The name `BITWEAVE_CPU` takes.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Portable => "portable",
            Tier::Aesni => "aesni",
            Tier::Avx2NoVaes => "avx2-novaes",
            Tier::Avx2 => "avx2",
            Tier::Avx2Gfni => "avx2-gfni",
            Tier::Avx512 => "avx512",
            Tier::Neon => "neon",
            Tier::Crypto => "crypto",
        }
    }

    /// Parses a `BITWEAVE_CPU` value (case-insensitive; this architecture's tiers only).
    pub fn parse(s: &str) -> Option<Tier> {
        let s = s.trim().to_ascii_lowercase();
        Tier::ALL.iter().copied().find(|t| t.name() == s)
    }

    /// The features a CPU must report to count as this tier.
    fn needs(self) -> &'static [Feature] {
        match self {
            Tier::Portable => &[],
            Tier::Aesni => &[Feature::Aes, Feature::Sse41],
            Tier::Avx2NoVaes => &[Feature::Avx2, Feature::Aes],
            Tier::Avx2 => &[Feature::Avx2, Feature::Aes, Feature::Vaes],
            Tier::Avx2Gfni => &[Feature::Avx2, Feature::Aes, Feature::Vaes, Feature::Gfni],
            Tier::Avx512 => &[Feature::Avx512f, Feature::Avx512bw],
            Tier::Neon => &[Feature::Neon],
            Tier::Crypto => &[Feature::Neon, Feature::ArmAes],
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `BITWEAVE_CPU` or `BITWEAVE_TUNING` value that names none of the variable's choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSetting {
    /// The variable.
    pub var: &'static str,
    /// The value it held.
    pub value: String,
}

impl fmt::Display for BadSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, names): (_, Vec<_>) = if self.var == CPU_ENV {
            (
                "a CPU tier of this architecture",
                Tier::ALL.iter().map(|t| t.name()).collect(),
            )
        } else {
            (
                "a kernel tuning",
                Tuning::ALL.iter().map(|t| t.name()).collect(),
            )
        };
        write!(
            f,
            "{}='{}' is not {what} ({})",
            self.var,
            self.value,
            names.join(", ")
        )
    }
}

/// Whose measured kernel choices the backends take where Intel and AMD cores differ in
/// which of two kernels is faster (a hand-off size, a select instruction, a lane width).
/// Both choices are correct and constant-time on every CPU; only their speed differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tuning {
    /// Intel's choices.
    Intel,
    /// AMD's choices, which every vendor but Intel takes.
    Amd,
}

impl Tuning {
    pub const ALL: [Tuning; 2] = [Tuning::Intel, Tuning::Amd];

    /// The name `BITWEAVE_TUNING` takes.
    pub fn name(self) -> &'static str {
        match self {
            Tuning::Intel => "intel",
            Tuning::Amd => "amd",
        }
    }

    /// Parses a `BITWEAVE_TUNING` value (case-insensitive).
    pub fn parse(s: &str) -> Option<Tuning> {
        let s = s.trim().to_ascii_lowercase();
        Tuning::ALL.into_iter().find(|t| t.name() == s)
    }
}

impl fmt::Display for Tuning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An environment variable's value parsed by `parse` (`None`: unset or blank).
fn setting<T>(var: &'static str, parse: fn(&str) -> Option<T>) -> Result<Option<T>, BadSetting> {
    match std::env::var(var) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => parse(&v).map(Some).ok_or(BadSetting { var, value: v }),
        Err(_) => Ok(None),
    }
}

/// Detection and cap, read once.
struct State {
    /// Features the CPU has, one bit per [`Feature`].
    detected: u32,
    /// Features reported (detected and allowed by the cap).
    reported: u32,
    /// The cap from `BITWEAVE_CPU`, if set.
    cap: Result<Option<Tier>, BadSetting>,
    /// The tuning from `BITWEAVE_TUNING`, if set.
    tuning: Result<Option<Tuning>, BadSetting>,
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        let cap = setting(CPU_ENV, Tier::parse);
        let limit = match &cap {
            Ok(Some(t)) => *t,
            Ok(None) => Tier::top(),
            Err(_) => Tier::Portable,
        };
        let mut detected = 0;
        let mut reported = 0;
        for f in Feature::ALL {
            if f.detect() {
                detected |= f.bit();
                if f.tier() <= limit {
                    reported |= f.bit();
                }
            }
        }
        State {
            detected,
            reported,
            cap,
            tuning: setting(TUNING_ENV, Tuning::parse),
        }
    })
}

/// Whether backends may use `feature`: the CPU has it and the cap allows it.
pub fn has(feature: Feature) -> bool {
    state().reported & feature.bit() != 0
}

/// Whether backends may use every one of `features`.
pub fn has_all(features: &[Feature]) -> bool {
    features.iter().all(|&f| has(f))
}

/// Whether the CPU itself has `feature`, whatever the cap says (for reports).
pub fn detected(feature: Feature) -> bool {
    state().detected & feature.bit() != 0
}

/// The cap in force (`None`: no cap), or the bad value that was given.
pub fn cap() -> Result<Option<Tier>, BadSetting> {
    state().cap.clone()
}

/// Fails when `BITWEAVE_CPU` or `BITWEAVE_TUNING` holds an unknown value.
pub fn check() -> Result<(), BadSetting> {
    // By reference: every `Cipher::new` asks, and cloning the settings cost more than
    // reading them.
    let state = state();
    match (&state.cap, &state.tuning) {
        (Err(bad), _) | (_, Err(bad)) => Err(bad.clone()),
        _ => Ok(()),
    }
}

/// The highest tier whose features this CPU reports, as the backends see it.
pub fn tier() -> Tier {
    Tier::ALL
        .iter()
        .copied()
        .rev()
        .find(|&t| has_all(t.needs()))
        .unwrap_or(Tier::Portable)
}

/// The tuning `BITWEAVE_TUNING` sets (`None`: unset, the vendor's), or the bad value given.
pub fn tuning_setting() -> Result<Option<Tuning>, BadSetting> {
    state().tuning.clone()
}

/// Whose measured kernel choices the backends take: `BITWEAVE_TUNING`'s, else this CPU's
/// vendor's (AMD's for every vendor but Intel). An unknown value is an error at the first
/// backend selection ([`check`]); until then the vendor's choices stand.
pub fn tuning() -> Tuning {
    // By reference, as `check` reads: every AES key schedule asks.
    match &state().tuning {
        Ok(Some(t)) => *t,
        _ if is_intel() => Tuning::Intel,
        _ => Tuning::Amd,
    }
}

/// Whether the backends take Intel's measured kernel choices ([`tuning`]).
pub fn intel_tuning() -> bool {
    tuning() == Tuning::Intel
}

/// Whether the CPU is Intel's (CPUID vendor "GenuineIntel"), read once. Not a feature:
/// kernels ask [`tuning`], which follows it unless `BITWEAVE_TUNING` says otherwise.
pub fn is_intel() -> bool {
    static INTEL: OnceLock<bool> = OnceLock::new();
    *INTEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            let v = std::arch::x86_64::__cpuid(0);
            // "Genu" "ineI" "ntel" in EBX, EDX, ECX.
            (v.ebx, v.edx, v.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// `features` as `a+b+c`, or `-` for none (for listings and error messages).
pub fn describe(features: &[Feature]) -> String {
    if features.is_empty() {
        return "-".into();
    }
    features
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join("+")
}

/// What a backend needing `features` lacks here, for error messages: `a+b`, plus which
/// cap hides them when the CPU itself has them all.
pub fn missing(features: &[Feature]) -> String {
    let needs = describe(features);
    match cap() {
        Ok(Some(t)) if features.iter().all(|&f| detected(f)) => {
            format!("{needs}, which {CPU_ENV}={t} hides")
        }
        _ => needs,
    }
}

/// The features backends may use, as `a b c` (for `bitweave list`).
pub fn reported_names() -> String {
    Feature::ALL
        .into_iter()
        .filter(|&f| has(f))
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendor read from CPUID agrees with the kernel's reading of it.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    fn the_vendor_is_the_one_linux_reports() {
        let info = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
        let vendor = info
            .lines()
            .find_map(|l| l.strip_prefix("vendor_id"))
            .map(|v| v.trim_start_matches([' ', '\t', ':']).trim())
            .expect("a vendor_id line");
        eprintln!("vendor_id {vendor}; is_intel {}", is_intel());
        assert_eq!(is_intel(), vendor == "GenuineIntel");
    }

    #[test]
    fn tunings_parse_by_name_only() {
        for t in Tuning::ALL {
            assert_eq!(Tuning::parse(t.name()), Some(t));
            assert_eq!(Tuning::parse(&t.name().to_uppercase()), Some(t));
        }
        assert_eq!(Tuning::parse("zen3"), None);
        assert_eq!(Tuning::parse(""), None);
    }

    #[test]
    fn a_cap_only_lowers() {
        for f in Feature::ALL {
            assert!(
                !has(f) || detected(f),
                "{} reported but not detected",
                f.name()
            );
        }
    }

    #[test]
    fn tiers_parse_by_name_only() {
        for &t in Tier::ALL {
            assert_eq!(Tier::parse(t.name()), Some(t));
            assert_eq!(Tier::parse(&t.name().to_uppercase()), Some(t));
        }
        assert_eq!(Tier::parse("avx"), None);
        assert_eq!(Tier::parse("sse"), None);
        // Another architecture's tier is an unknown value here.
        let every = [
            Tier::Portable,
            Tier::Aesni,
            Tier::Avx2NoVaes,
            Tier::Avx2,
            Tier::Avx2Gfni,
            Tier::Avx512,
            Tier::Neon,
            Tier::Crypto,
        ];
        for t in every.into_iter().filter(|t| !Tier::ALL.contains(t)) {
            assert_eq!(Tier::parse(t.name()), None, "{t}");
        }
        assert_eq!(Tier::top(), *Tier::ALL.last().unwrap());
    }

    #[test]
    fn the_zen3_tier_has_no_avx512_or_gfni() {
        for f in [Feature::Gfni, Feature::Avx512f, Feature::Avx512vbmi2] {
            assert!(f.tier() > Tier::Avx2, "{}", f.name());
        }
        for f in [
            Feature::Avx2,
            Feature::Vaes,
            Feature::Aes,
            Feature::Pclmulqdq,
        ] {
            assert!(f.tier() <= Tier::Avx2, "{}", f.name());
        }
    }

    #[test]
    fn the_haswell_tier_has_avx2_but_no_vaes() {
        assert_eq!(Feature::Avx2.tier(), Tier::Avx2NoVaes);
        for f in [Feature::Vaes, Feature::Vpclmulqdq, Feature::Gfni] {
            assert!(f.tier() > Tier::Avx2NoVaes, "{}", f.name());
        }
        assert!(Tier::Aesni < Tier::Avx2NoVaes && Tier::Avx2NoVaes < Tier::Avx2);
    }

    #[test]
    fn the_alder_lake_tier_has_gfni_but_no_avx512() {
        assert_eq!(Feature::Gfni.tier(), Tier::Avx2Gfni);
        assert!(Feature::Vaes.tier() < Tier::Avx2Gfni);
        for f in [Feature::Avx512f, Feature::Avx512vl, Feature::Avx512bitalg] {
            assert!(f.tier() > Tier::Avx2Gfni, "{}", f.name());
        }
    }
}
