//! ctgrind in `cargo test`: the harness binary under valgrind memcheck with every secret
//! marked undefined. A constant-time backend must produce no report except at the
//! library's allowed public decisions; the leaky controls must produce reports.
//!
//! Valgrind's synthetic CPU has AVX2 and AES-NI but no AVX-512, VAES or GFNI: those
//! backends are covered by the timing test (tests/ttest.rs), and asking ctgrind for them
//! fails (checked below), never passes silently.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use bitweave_ct::runner::{self, Outcome, VG_ERROR_EXIT};

/// The harness as `cargo test` built it (test profile), for the checks that need no
/// valgrind run of the library's optimised code.
const TEST_BIN: &str = env!("CARGO_BIN_EXE_bitweave-ct");

/// Wall-clock bound of one valgrind run (each takes a few seconds).
const LIMIT: Duration = Duration::from_secs(240);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The harness built the way users get the library — the `ct` profile, which is
/// `release` (LTO, one codegen unit) plus line tables so reports name source lines —
/// built once per test run into `target/ct` (its own target directory, so the `cargo`
/// running these tests does not hold its lock).
fn harness() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let target = root().join("target/ct");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--quiet", "--profile", "ct", "-p", "bitweave-ct"])
            .arg("--target-dir")
            .arg(&target)
            .current_dir(root())
            .output()
            .expect("run cargo to build the ct profile");
        assert!(
            out.status.success(),
            "building bitweave-ct with --profile ct failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bin = target.join("ct/bitweave-ct");
        eprintln!(
            "ctgrind runs {} (profile ct: release + line tables)",
            bin.display()
        );
        bin
    })
}

fn require_valgrind() {
    if runner::valgrind_version().is_none() {
        panic!("valgrind is not installed: apt-get install valgrind (.ci/run does)");
    }
}

fn ctgrind(targets: &[&str]) -> Outcome {
    ctgrind_with(targets, &[])
}

/// [`ctgrind`] with environment variables set for the harness.
fn ctgrind_with(targets: &[&str], env: &[(&str, &str)]) -> Outcome {
    require_valgrind();
    if let Ok(cap) = std::env::var("BITWEAVE_CPU") {
        eprintln!("BITWEAVE_CPU={cap} not passed on: the targets are named backends");
    }
    let o = runner::run(harness(), &root(), targets, env, LIMIT).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{}{:.1} s under valgrind", o.stdout, o.seconds);
    o
}

/// Public decisions each target makes inside the library: block ciphers check a valid
/// and a bad PKCS#7 pad, π-Cipher and AES-GCM a genuine and a forged tag.
const DECISIONS: u64 = 2;

/// A target's allowed decisions: π-Cipher checks its genuine and forged tags twice, one
/// at a time and both in one `decrypt_many_into` call.
fn decisions(target: &str) -> u64 {
    if target.starts_with("pi") {
        2 * DECISIONS
    } else {
        DECISIONS
    }
}

/// Runs constant-time targets and holds them to: no leak report, every target ran on
/// the backend it asked for, no more reports than allowed decisions, and the allowed
/// decision actually reached (proof the secrets flowed through the backend).
fn assert_constant_time(targets: &[&str]) {
    assert_constant_time_with(targets, &[]);
}

/// [`assert_constant_time`] with environment variables set for the harness.
fn assert_constant_time_with(targets: &[&str], env: &[(&str, &str)]) -> Outcome {
    let o = ctgrind_with(targets, env);
    assert!(
        o.leaks.is_empty(),
        "secret-dependent branch or address:\n{}",
        o.leak_text()
    );
    assert!(
        o.failures().is_empty(),
        "harness failures: {:?}",
        o.failures()
    );
    for t in targets {
        let n = o
            .reports_for(t)
            .unwrap_or_else(|| panic!("{t} did not run:\n{}\n{}", o.stdout, o.stderr));
        let allowed = decisions(t);
        assert!(n <= allowed, "{t}: {n} reports, {allowed} allowed");
    }
    assert!(
        !o.allowed.is_empty(),
        "no allowed public decision was reached: the secrets did not flow through"
    );
    let want = if o.allowed.is_empty() {
        0
    } else {
        VG_ERROR_EXIT
    };
    assert_eq!(o.exit, Some(want), "stderr:\n{}", o.stderr);
    o
}

#[test]
fn aes_sliced_and_aesni_are_constant_time() {
    assert_constant_time(&[
        "aes-128/sliced64",
        "aes-128/sliced128",
        "aes-128/sliced256",
        "aes-128/aesni",
        "aes-192/sliced64",
        "aes-192/sliced128",
        "aes-192/sliced256",
        "aes-192/aesni",
        "aes-256/sliced64",
        "aes-256/sliced128",
        "aes-256/sliced256",
        "aes-256/aesni",
    ]);
}

#[test]
fn des_family_and_seed_batch_kernels_are_constant_time() {
    assert_constant_time(&[
        "des/sliced64",
        "des/sliced128",
        "des/sliced256",
        "des-ede/sliced64",
        "des-ede/sliced128",
        "des-ede/sliced256",
        "des-ede3/sliced64",
        "des-ede3/sliced128",
        "des-ede3/sliced256",
        "seed/ct64",
        "seed/aesni128",
        "seed/aesni256",
    ]);
}

/// The single-block kernels that serve serial work (one chain, CFB8/CFB1, a few blocks):
/// DES with a variable shift per S-box bit, SEED with its S-boxes on AESENCLAST, AES
/// byte-sliced without the AES instructions; no table in memory.
#[test]
fn serial_kernels_are_constant_time() {
    assert_constant_time(&[
        "des/shift64",
        "des/shift256",
        "des-ede/shift256",
        "des-ede3/shift64",
        "des-ede3/shift256",
        "seed/aesni",
        "aes-128/packed64",
        "aes-192/packed64",
        "aes-256/packed64",
    ]);
}

/// The kernels AMD's measured choices pick, which the tests above never run: valgrind's
/// synthetic CPU reports itself as Intel, so they get Intel's (`bitweave::cpu::tuning`).
/// Under `BITWEAVE_TUNING=amd`: AES-NI counter mode's one-block kernel and its counters
/// built on the stack, `shift256`'s `vblendvpd` select, and the bitsliced 256-lane
/// kernels on a message's tail (Intel's tuning runs tails at 64 lanes).
#[test]
fn amd_tuned_kernels_are_constant_time() {
    let targets = [
        "aes-128/aesni",
        "aes-256/aesni",
        "aes-128/sliced256",
        "des/shift256",
        "des-ede3/shift256",
        "des-ede3/sliced256",
    ];
    let o = assert_constant_time_with(&targets, &[("BITWEAVE_TUNING", "amd")]);
    assert!(
        o.stdout.contains("kernel tuning: amd"),
        "the harness did not take AMD's tuning:\n{}",
        o.stdout
    );
}

#[test]
fn pi_cipher_is_constant_time() {
    let names: Vec<String> = bitweave::aead::PiVariant::ALL
        .iter()
        .flat_map(|v| ["ref", "portable", "avx2"].map(|b| format!("{}/{b}", v.name())))
        .collect();
    let targets: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_constant_time(&targets);
}

/// AES-256-GCM on the GHASH backends valgrind runs: the masked-multiply `soft` and
/// PCLMULQDQ (`clmul256` and `clmul512`, the same arithmetic on VPCLMULQDQ, valgrind's CPU lacks), with the
/// AES backend the library picks under valgrind's CPU; and the AES-NI tier's stitched
/// loop (AES-NI and PCLMULQDQ interleaved).
#[test]
fn aes_gcm_is_constant_time() {
    assert_constant_time(&[
        "aes-256-gcm/ghash-soft",
        "aes-256-gcm/ghash-clmul128",
        "aes-256-gcm/stitched-aesni-clmul128",
    ]);
}

/// The controls: a secret-indexed table, an early-exit comparison, the smallest of each
/// (one secret branch, one lookup into a 16-entry table) and the library's
/// table-based `soft` AES (not constant-time by design; DES and SEED `soft` are flagged
/// the same way, left out to keep the run short) must each be reported, and not as an
/// allowed decision.
#[test]
fn ctgrind_flags_leaks() {
    let o = ctgrind(&[
        "leak/table",
        "leak/compare",
        "leak/branch",
        "leak/table16",
        "aes-128/soft",
    ]);
    assert_eq!(o.exit, Some(VG_ERROR_EXIT), "stderr:\n{}", o.stderr);
    for (t, allowed) in [
        ("leak/table", 0),
        ("leak/compare", 0),
        ("leak/branch", 0),
        ("leak/table16", 0),
        ("aes-128/soft", DECISIONS),
    ] {
        let n = o.reports_for(t).unwrap_or(0);
        assert!(n > allowed, "{t}: {n} reports, the leak went unseen");
    }
    let kinds: Vec<&str> = o.leaks.iter().map(|r| r.kind.as_str()).collect();
    assert!(
        kinds.contains(&"UninitValue"),
        "no secret address: {kinds:?}"
    );
    assert!(
        kinds.contains(&"UninitCondition"),
        "no secret branch: {kinds:?}"
    );
    let at = |f: &str| {
        o.leaks
            .iter()
            .any(|r| r.frames.iter().any(|fr| fr.func.contains(f)))
    };
    assert!(
        at("table_lookup")
            && at("early_exit_eq")
            && at("one_secret_branch")
            && at("small_table_lookup")
            && at("soft"),
        "{}",
        o.leak_text()
    );
}

/// A backend valgrind's CPU lacks (VAES, GFNI, AVX-512) fails instead of passing.
#[test]
fn ctgrind_refuses_backends_valgrind_cannot_run() {
    let o = ctgrind(&[
        "aes-128/vaes256",
        "seed/gfni256",
        "des/sliced512",
        "pi32cipher128v2/avx512",
    ]);
    assert_eq!(o.failures().len(), 4, "{}", o.stdout);
    assert!(o.stdout.contains("cannot run here"), "{}", o.stdout);
    assert_eq!(o.exit, Some(3));
}

/// Outside valgrind the harness refuses to run (a clean exit would mean nothing).
#[test]
fn ctgrind_refuses_to_run_natively() {
    let out = Command::new(TEST_BIN)
        .args(["ctgrind", "aes-128/sliced64"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
