//! The `bitweave` binary: every KAT vector through `enc`/`dec`, byte-for-byte equality
//! with the `openssl enc` command on random inputs, and every error case (message, exit
//! code, no output file, existing output untouched).

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{bitweave, check_failure, names, run_with_files, vectors_dir};
use rand::{Rng, RngCore, SeedableRng};
use serde_json::Value;

/// Runs bitweave with files: writes `input` to a temp file, returns (output, file bytes).
fn run_files(args: &[&str], input: &[u8]) -> (Output, Option<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let (inp, outp) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::write(&inp, input).unwrap();
    let out = run_with_files(args, &inp, &outp);
    let written = std::fs::read(&outp).ok();
    assert_only_expected_files(dir.path(), written.is_some());
    (out, written)
}

/// No temporary files may remain beside the output.
fn assert_only_expected_files(dir: &Path, with_output: bool) {
    let want: Vec<String> = if with_output {
        vec!["in".into(), "out".into()]
    } else {
        vec!["in".into()]
    };
    assert_eq!(names(dir), want, "stray files left behind");
}

#[test]
fn every_vector_through_the_cli() {
    let mut count = 0;
    for entry in std::fs::read_dir(vectors_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.starts_with("pi") {
            continue;
        }
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let alg = file["algorithm"].as_str().unwrap();
        let nopad = file["padding"] == "none";
        let n = file["interleave"].as_u64().unwrap().to_string();
        for v in file["vectors"].as_array().unwrap() {
            let hexf = |k: &str| v[k].as_str().unwrap().to_string();
            let mut args = vec!["-c", alg, "-K"];
            let key = hexf("key");
            let iv = hexf("iv");
            args.push(&key);
            if !iv.is_empty() {
                args.extend(["--iv", &iv]);
            }
            if nopad {
                args.push("--nopad");
            }
            args.extend(["--interleave", &n]);
            let pt = hex::decode(hexf("plaintext")).unwrap();
            let ct = hex::decode(hexf("ciphertext")).unwrap();
            let mut enc = vec!["enc"];
            enc.extend(&args);
            let (out, written) = run_files(&enc, &pt);
            assert!(
                out.status.success(),
                "{name} #{}: {}",
                v["id"],
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(written.unwrap(), ct, "{name} #{} enc", v["id"]);
            let mut dec = vec!["dec"];
            dec.extend(&args);
            let (out, written) = run_files(&dec, &ct);
            assert!(out.status.success(), "{name} #{}", v["id"]);
            assert_eq!(written.unwrap(), pt, "{name} #{} dec", v["id"]);
            count += 1;
        }
    }
    assert!(count > 500, "only {count} vectors");
}

fn openssl_enc(
    suite: &str,
    decrypt: bool,
    key: &str,
    iv: &str,
    nopad: bool,
    input: &[u8],
) -> Vec<u8> {
    let mut cmd = Command::new("openssl");
    cmd.args(["enc", &format!("-{suite}"), "-K", key]);
    if decrypt {
        cmd.arg("-d");
    }
    if !iv.is_empty() {
        cmd.args(["-iv", iv]);
    }
    if nopad {
        cmd.arg("-nopad");
    }
    if suite.starts_with("des") || suite.starts_with("seed") {
        cmd.args(["-provider", "legacy", "-provider", "default"]);
    }
    let out = pipe(cmd, input);
    assert!(
        out.status.success(),
        "openssl {suite}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn pipe(mut cmd: Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn (is the openssl command installed?)");
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Byte-identical to `openssl enc` through stdin/stdout for every suite OpenSSL has.
#[test]
fn byte_identical_to_openssl_enc() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    let suites: Vec<bitweave::Suite> = bitweave::Suite::all();
    for suite in suites {
        let Some(name) = suite.openssl_name() else {
            continue;
        };
        let bs = suite.cipher.block_size();
        for case in 0..7 {
            let nopad = suite.mode.whole_blocks() && case % 2 == 1;
            let mut key = vec![0u8; suite.cipher.key_len()];
            rng.fill_bytes(&mut key);
            let mut iv = vec![0u8; if suite.mode.takes_iv() { bs } else { 0 }];
            rng.fill_bytes(&mut iv);
            let mut len = [0, 1, 15, 16, 17, 1000, 70_000][case % 7] + rng.gen_range(0..3);
            if nopad {
                len -= len % bs;
            }
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let (k, i) = (hex::encode(&key), hex::encode(&iv));
            let want = openssl_enc(&name, false, &k, &i, nopad, &pt);
            let mut args = vec![
                "enc".to_string(),
                "-c".into(),
                name.clone(),
                "-K".into(),
                k.clone(),
            ];
            if !i.is_empty() {
                args.extend(["--iv".into(), i.clone()]);
            }
            if nopad {
                args.push("--nopad".into());
            }
            let mut cmd = bitweave();
            cmd.args(&args);
            let out = pipe(cmd, &pt);
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.stdout, want, "{name} case {case} len {len}");
            args[0] = "dec".into();
            let mut cmd = bitweave();
            cmd.args(&args);
            let out = pipe(cmd, &want);
            assert!(out.status.success());
            assert_eq!(out.stdout, pt, "{name} dec case {case}");
            assert_eq!(openssl_enc(&name, true, &k, &i, nopad, &want), pt);
        }
    }
}

const KEY16: &str = "000102030405060708090a0b0c0d0e0f";
const IV16: &str = "f0e0d0c0b0a090807060504030201000";

/// Runs a failing command with an existing output file and checks the contract.
fn expect_error(args: &[&str], input: &[u8], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (inp, outp) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::write(&inp, input).unwrap();
    // 1. No output file is created.
    let out = run_with_files(args, &inp, &outp);
    check_failure(&out, message, args);
    assert_only_expected_files(dir.path(), false);
    // 2. An existing output file is left untouched.
    std::fs::write(&outp, b"precious").unwrap();
    let out = run_with_files(args, &inp, &outp);
    check_failure(&out, message, args);
    assert_eq!(std::fs::read(&outp).unwrap(), b"precious");
    assert_only_expected_files(dir.path(), true);
}

#[test]
fn each_error_has_its_own_message_and_leaves_no_file() {
    let cbc = |extra: &[&'static str]| {
        let mut v = vec!["enc", "-c", "aes-128-cbc", "-K", KEY16, "--iv", IV16];
        v.extend_from_slice(extra);
        v
    };
    expect_error(
        &["enc", "-c", "aes-128-cbc", "-K", "0011", "--iv", IV16],
        b"x",
        "wrong key length for aes-128: expected 16 bytes, got 2",
    );
    expect_error(
        &[
            "enc",
            "-c",
            "aes-128-cbc",
            "-K",
            "zz0102030405060708090a0b0c0d0e0f",
            "--iv",
            IV16,
        ],
        b"x",
        "key (-K) is not valid hex: bad digit at position 1",
    );
    expect_error(
        &["enc", "-c", "aes-128-cbc", "-K", "000", "--iv", IV16],
        b"x",
        "key (-K) is not valid hex: odd number of digits",
    );
    expect_error(
        &["enc", "-c", "aes-128-cbc", "-K", KEY16, "--iv", "00g0"],
        b"x",
        "IV (--iv) is not valid hex",
    );
    expect_error(
        &["enc", "-c", "aes-128-cbc", "-K", KEY16, "--iv", "0011"],
        b"x",
        "wrong IV length for aes-128-cbc: expected 16 bytes, got 2",
    );
    expect_error(
        &["enc", "-c", "aes-128-cbc", "-K", KEY16],
        b"x",
        "aes-128-cbc needs an IV (--iv)",
    );
    expect_error(
        &["enc", "-c", "aes-128-xyz", "-K", KEY16],
        b"x",
        "unknown cipher 'aes-128-xyz' (run `bitweave list` for the supported names)",
    );
    expect_error(
        &cbc(&["--nopad"]),
        b"seventeen bytes!!",
        "input length 17 is not a whole number of 16-byte blocks",
    );
    expect_error(
        &[
            "enc",
            "-c",
            "aes-128-ctr",
            "-K",
            KEY16,
            "--iv",
            IV16,
            "--interleave",
            "2",
        ],
        b"x",
        "interleaving applies to cbc, cfb and ofb only, not ctr",
    );
    expect_error(
        &cbc(&["--interleave", "0"]),
        b"x",
        "interleave factor must be at least 1",
    );
    expect_error(
        &cbc(&["--interleave", "2"]),
        b"x",
        "wrong IV length for aes-128-cbc with interleave 2: expected 32 bytes, got 16",
    );
    expect_error(
        &cbc(&["--backend", "nosuch"]),
        b"x",
        "unknown backend 'nosuch' (run `bitweave list` for the backends)",
    );
    let mut dec = cbc(&[]);
    dec[0] = "dec";
    expect_error(&dec, &[7u8; 32], "bad decrypt");
    expect_error(
        &dec,
        &[7u8; 20],
        "input length 20 is not a whole number of 16-byte blocks",
    );
    expect_error(
        &dec,
        b"",
        "input length 0 is not a whole number of 16-byte blocks",
    );
    let des = [
        "dec",
        "-c",
        "des-ede3-cbc",
        "-K",
        "00112233445566778899aabbccddeeff0011223344556677",
        "--iv",
        "0011223344556677",
    ];
    expect_error(&des, &[1u8; 13], "not a whole number of 8-byte blocks");
}

#[test]
fn unreadable_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let outp = dir.path().join("out");
    let out = bitweave()
        .args(["enc", "-c", "aes-128-ecb", "-K", KEY16, "-i"])
        .arg(dir.path().join("missing"))
        .arg("-o")
        .arg(&outp)
        .output()
        .unwrap();
    check_failure(&out, "cannot read", &[]);
    assert!(!outp.exists());
}

#[test]
fn secrets_are_not_echoed_in_errors() {
    let key = "deadbeefdeadbeefdeadbeefdeadbeefff";
    let out = bitweave()
        .args(["enc", "-c", "aes-128-cbc", "-K", key, "--iv", IV16])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("deadbeef"), "{stderr}");
}

#[test]
fn ecb_with_an_iv_warns_like_openssl() {
    let mut cmd = bitweave();
    cmd.args(["enc", "-c", "aes-128-ecb", "-K", KEY16, "--iv", IV16]);
    let out = pipe(cmd, b"abc");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "warning: iv not used by this cipher"
    );
    assert_eq!(out.stdout.len(), 16);
}

#[test]
fn list_names_ciphers_and_backends() {
    let out = bitweave().arg("list").output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    for want in [
        "aes-128",
        "des-ede3",
        "seed",
        "cfb1",
        "soft",
        "des-ede3-cbc",
    ] {
        assert!(s.contains(want), "list lacks {want}");
    }
}

#[test]
fn bench_json_has_the_contract_fields() {
    let out = bitweave()
        .args([
            "bench",
            "--json",
            "-c",
            "aes-128-cbc",
            "-c",
            "seed-ctr",
            "--size",
            "4096",
            "--time-ms",
            "2",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rows.len() >= 4);
    for r in &rows {
        for field in [
            "cipher",
            "direction",
            "backend",
            "threads",
            "interleave",
            "bytes",
            "gbps",
            "cycles_per_byte",
            "openssl_gbps",
            "ratio_vs_openssl",
        ] {
            assert!(r.get(field).is_some(), "row lacks {field}: {r}");
        }
        assert!(r["gbps"].as_f64().unwrap() > 0.0);
    }
    let aes = rows.iter().find(|r| r["cipher"] == "aes-128-cbc").unwrap();
    assert!(aes["openssl_gbps"].as_f64().unwrap() > 0.0);
    let seed_ctr = rows.iter().find(|r| r["cipher"] == "seed-ctr").unwrap();
    assert!(
        seed_ctr["openssl_gbps"].is_null(),
        "OpenSSL has no SEED-CTR"
    );
}

#[test]
fn split_sweep_reports_every_ratio() {
    let list = bitweave().arg("list").output().unwrap();
    if !String::from_utf8_lossy(&list.stdout).contains("Default backend per cipher: aes-128=vaes") {
        eprintln!("skipped: this CPU lacks VAES");
        return;
    }
    let out = bitweave()
        .args([
            "bench",
            "--split-sweep",
            "-c",
            "aes-128",
            "--split",
            "aesni,vaes256",
            "--json",
            "--time-ms",
            "1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 13, "11 ratios, auto and dynamic");
    assert!(rows
        .iter()
        .all(|r| r["gbps"].as_f64().unwrap() > 0.0 && r["workers"][0] == "aesni"));
    let auto = rows.iter().find(|r| r["schedule"] == "auto").unwrap();
    assert!((0.0..=1.0).contains(&auto["ratio"].as_f64().unwrap()));
}
