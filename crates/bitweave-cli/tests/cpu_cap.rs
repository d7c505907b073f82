//! The tier cap (`BITWEAVE_CPU`): under every tier this CPU can mask down to, selection
//! picks that tier's backends and every suite gives the bytes of the portable `soft`
//! backend. The cap is read once per process, so each tier runs as its own command.

mod common;

use common::{bitweave, check_failure};
use std::process::Output;

const TIERS: [&str; 6] = [
    "portable",
    "aesni",
    "avx2-novaes",
    "avx2",
    "avx2-gfni",
    "avx512",
];

fn list(cap: Option<&str>) -> String {
    let mut cmd = bitweave();
    cmd.arg("list");
    match cap {
        Some(t) => cmd.env("BITWEAVE_CPU", t),
        None => cmd.env_remove("BITWEAVE_CPU"),
    };
    let out = cmd.env_remove("BITWEAVE_BACKEND").output().unwrap();
    assert!(out.status.success(), "list under {cap:?}: {:?}", out);
    String::from_utf8(out.stdout).unwrap()
}

/// The value after `label` on the line that starts with it.
fn line_after<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{text}"))
        .trim()
}

/// `cipher=backend` pairs of a "Default ..." line.
fn defaults(text: &str, label: &str) -> Vec<(String, String)> {
    line_after(text, label)
        .split_whitespace()
        .filter_map(|p| p.split_once('='))
        .map(|(c, b)| (c.to_string(), b.to_string()))
        .collect()
}

fn default_of(pairs: &[(String, String)], cipher: &str) -> String {
    pairs
        .iter()
        .find(|(c, _)| c == cipher)
        .map(|(_, b)| b.clone())
        .unwrap_or_else(|| panic!("no default for {cipher}"))
}

/// The tiers at or below this CPU's own.
fn reachable_tiers() -> Vec<&'static str> {
    let top = list(None);
    let own = line_after(&top, "CPU tier:")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let n = TIERS.iter().position(|&t| t == own).expect("a known tier") + 1;
    let (ran, not) = TIERS.split_at(n);
    eprintln!("tier caps run: {ran:?}; this CPU ({own}) cannot run: {not:?}");
    ran.to_vec()
}

fn encrypt(cap: Option<&str>, backend: Option<&str>, suite: &str, data: &[u8]) -> Output {
    encrypt_tuned(cap, None, backend, suite, data)
}

/// [`encrypt`] with `BITWEAVE_TUNING` set (`None`: unset).
fn encrypt_tuned(
    cap: Option<&str>,
    tuning: Option<&str>,
    backend: Option<&str>,
    suite: &str,
    data: &[u8],
) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, data).unwrap();
    let key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    let key_len = match suite {
        s if s.starts_with("aes-128") || s.starts_with("seed") => 32,
        s if s.starts_with("aes-192") || s.starts_with("des-ede3") => 48,
        s if s.starts_with("aes-256") => 64,
        s if s.starts_with("des-ede") => 32,
        _ => 16,
    };
    let iv_len = if suite.starts_with("des") { 16 } else { 32 };
    let mut cmd = bitweave();
    cmd.args(["enc", "-c", suite, "-K", &key[..key_len]])
        .args(["--iv", &"f0e1d2c3b4a5968778695a4b3c2d1e0f"[..iv_len]])
        .arg("-i")
        .arg(&input)
        .env_remove("BITWEAVE_BACKEND");
    match cap {
        Some(t) => cmd.env("BITWEAVE_CPU", t),
        None => cmd.env_remove("BITWEAVE_CPU"),
    };
    match tuning {
        Some(t) => cmd.env("BITWEAVE_TUNING", t),
        None => cmd.env_remove("BITWEAVE_TUNING"),
    };
    if let Some(b) = backend {
        cmd.args(["--backend", b]);
    }
    cmd.output().unwrap()
}

#[test]
fn every_reachable_tier_selects_its_own_backends() {
    for tier in reachable_tiers() {
        let text = list(Some(tier));
        assert!(
            text.contains(&format!("capped by BITWEAVE_CPU={tier}")),
            "{tier}: cap not shown"
        );
        assert!(line_after(&text, "CPU tier:").starts_with(tier), "{tier}");
        let batch = defaults(&text, "Default backend per cipher:");
        let serial = defaults(
            &text,
            "Default for serial work (one chain, CFB8/CFB1, short calls):",
        );
        // Without AVX2, x86-64 batches run on SSE2's 128 lanes (every x86-64 CPU has
        // SSE2, so the `portable` cap keeps it); ARM64's portable tier has no NEON.
        let sliced = if cfg!(target_arch = "x86_64") {
            "sliced128"
        } else {
            "sliced64"
        };
        let want: &[(&str, &str, &str)] = match tier {
            "portable" => &[
                ("aes-128", sliced, "packed64"),
                ("des-ede3", sliced, "shift64"),
                ("seed", "ct64", "ct64"),
            ],
            "aesni" => &[
                ("aes-128", "aesni", "aesni"),
                ("des-ede3", "sliced128", "shift64"),
                ("seed", "aesni128", "aesni"),
            ],
            "avx2-novaes" => &[
                ("aes-256", "aesni", "aesni"),
                ("des", "sliced256", "shift256"),
                ("seed", "aesni256", "aesni"),
            ],
            "avx2" => &[
                ("aes-256", "vaes256", "vaes256"),
                ("des", "sliced256", "shift256"),
                ("seed", "vaes256", "aesni"),
            ],
            "avx2-gfni" => &[
                ("aes-256", "vaes256", "vaes256"),
                ("des", "sliced256", "shift256"),
                ("seed", "gfni256", "gfni128-avx2"),
            ],
            "avx512" => &[("des", "sliced512", "rotate256")],
            "neon" => &[
                ("aes-128", "sliced128", "packed64"),
                ("des-ede3", "sliced128", "shift64"),
            ],
            "crypto" => &[
                ("aes-128", "armv8", "armv8"),
                ("des-ede3", "sliced128", "shift64"),
            ],
            _ => &[],
        };
        for &(cipher, b, s) in want {
            assert_eq!(default_of(&batch, cipher), b, "{tier}: {cipher} batch");
            assert_eq!(default_of(&serial, cipher), s, "{tier}: {cipher} serial");
        }
        let aead = line_after(&text, "AEAD backends:");
        let pi_default = aead.rsplit("(default ").next().unwrap();
        let want_pi = match tier {
            "portable" | "aesni" => Some("portable)"),
            "avx2-novaes" | "avx2" | "avx2-gfni" => Some("avx2)"),
            _ => None,
        };
        if let Some(p) = want_pi {
            assert_eq!(pi_default, p, "{tier}: pi-Cipher default");
        }
    }
}

#[test]
fn every_reachable_tier_gives_the_soft_bytes() {
    // Sizes that reach the serial path (one block), a batch and a partial batch.
    let data: Vec<u8> = (0..4133u32).map(|i| (i * 31 + 7) as u8).collect();
    let suites = [
        "aes-128-ctr",
        "aes-256-cbc",
        "aes-192-cfb8",
        "des-ecb",
        "des-ede3-cbc",
        "des-ede3-ofb",
        "seed-ctr",
        "seed-cbc",
    ];
    let tiers = reachable_tiers();
    for suite in suites {
        for len in [16, data.len()] {
            let soft = encrypt(None, Some("soft"), suite, &data[..len]);
            assert!(soft.status.success(), "{suite} soft: {soft:?}");
            for &tier in &tiers {
                let got = encrypt(Some(tier), None, suite, &data[..len]);
                assert!(got.status.success(), "{suite} under {tier}: {got:?}");
                assert_eq!(
                    got.stdout, soft.stdout,
                    "{suite}, {len} B, default backend under BITWEAVE_CPU={tier} vs soft"
                );
            }
        }
    }
}

#[test]
fn a_backend_the_cap_hides_is_refused_by_name() {
    let out = encrypt(
        Some("portable"),
        Some("aesni"),
        "aes-128-ctr",
        b"0123456789abcdef",
    );
    check_failure(&out, "BITWEAVE_CPU=portable hides", &["--backend aesni"]);
}

#[test]
fn an_unknown_tier_is_one_clear_error() {
    for bad in ["avx", "sse4", "AVX-512"] {
        let out = bitweave()
            .arg("list")
            .env("BITWEAVE_CPU", bad)
            .output()
            .unwrap();
        check_failure(
            &out,
            &format!("BITWEAVE_CPU='{bad}' is not a CPU tier"),
            &[bad],
        );
    }
}

#[test]
fn an_unknown_tuning_is_one_clear_error() {
    for bad in ["arm", "zen3"] {
        let out = bitweave()
            .arg("list")
            .env("BITWEAVE_TUNING", bad)
            .output()
            .unwrap();
        check_failure(
            &out,
            &format!("BITWEAVE_TUNING='{bad}' is not a kernel tuning (intel, amd)"),
            &[bad],
        );
    }
}

/// Either vendor's kernel choices (`BITWEAVE_TUNING`) give the same bytes on this CPU, at
/// every tier it reaches: AES-CTR at the sizes where the choices differ (one block, a
/// partial one, AES-NI's counter groups) and 3DES-CBC (`shift256`'s select).
#[test]
fn both_tunings_give_the_same_bytes() {
    let data: Vec<u8> = (0..700u32).map(|i| (i * 31 % 251) as u8).collect();
    for tier in reachable_tiers() {
        for suite in ["aes-128-ctr", "aes-256-ctr", "des-ede3-cbc"] {
            for len in [5, 16, 700] {
                let run = |tuning| {
                    let out = encrypt_tuned(Some(tier), Some(tuning), None, suite, &data[..len]);
                    assert!(
                        out.status.success(),
                        "{suite} {len} B {tier} {tuning}: {out:?}"
                    );
                    out.stdout
                };
                assert_eq!(
                    run("intel"),
                    run("amd"),
                    "{suite} {len} B under BITWEAVE_CPU={tier}: the tunings' bytes differ"
                );
            }
        }
    }
}
