//! `bitweave aead-enc` / `aead-dec`: every π-Cipher vector through the CLI (files and
//! pipes, every backend this CPU runs), the recovered nsec, and every error case (message,
//! exit code 1, no output file created, an existing output file untouched, nothing on stdout).

mod common;

use std::path::PathBuf;
use std::process::{Output, Stdio};

use common::{bitweave, check_failure, names, run_with_files, vectors_dir};
use serde_json::Value;

/// Runs with `-i in -o out` in a fresh directory; returns the process output, the output
/// file (if any) and the directory listing.
fn run_files(args: &[&str], input: &[u8]) -> (Output, Option<Vec<u8>>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let (inp, outp) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::write(&inp, input).unwrap();
    let out = run_with_files(args, &inp, &outp);
    (out, std::fs::read(&outp).ok(), names(dir.path()))
}

fn pipe(args: &[&str], input: &[u8]) -> Output {
    let mut child = bitweave()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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

struct Vector {
    alg: String,
    id: u64,
    key: String,
    nsec: String,
    npub: String,
    ad: String,
    pt: Vec<u8>,
    ct: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    let mut all = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("pi") && n.ends_with(".json")
        })
        .collect();
    files.sort();
    for path in files {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for v in file["vectors"].as_array().unwrap() {
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            all.push(Vector {
                alg: file["algorithm"].as_str().unwrap().to_string(),
                id: v["id"].as_u64().unwrap(),
                key: s("key"),
                nsec: s("nsec"),
                npub: s("npub"),
                ad: s("ad"),
                pt: hex::decode(s("plaintext")).unwrap(),
                ct: hex::decode(s("ciphertext")).unwrap(),
            });
        }
    }
    assert_eq!(all.len(), 120, "six files of 20 vectors");
    all
}

fn base<'a>(cmd: &'a str, v: &'a Vector) -> Vec<&'a str> {
    let mut a = vec![cmd, "-c", &v.alg, "-K", &v.key, "--npub", &v.npub];
    if !v.ad.is_empty() {
        a.extend(["--ad", &v.ad]);
    }
    a
}

#[test]
fn every_vector_through_the_cli() {
    for v in &vectors() {
        let what = format!("{} #{}", v.alg, v.id);
        let mut enc = base("aead-enc", v);
        enc.extend(["--nsec", &v.nsec]);
        let (out, written, files) = run_files(&enc, &v.pt);
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty() && out.stdout.is_empty());
        assert_eq!(written.unwrap(), v.ct, "enc {what}");
        assert_eq!(files, ["in", "out"]);

        // Decrypt, with the nsec written to a file.
        let dir = tempfile::tempdir().unwrap();
        let nsec_file = dir.path().join("nsec.hex");
        let nsec_path = nsec_file.to_str().unwrap();
        let mut dec = base("aead-dec", v);
        dec.extend(["--nsec-out", nsec_path]);
        let (out, written, _) = run_files(&dec, &v.ct);
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(written.unwrap(), v.pt, "dec {what}");
        assert_eq!(
            std::fs::read_to_string(&nsec_file).unwrap(),
            format!("{}\n", v.nsec)
        );
        assert_eq!(names(dir.path()), ["nsec.hex"]);
    }
}

#[test]
fn pipes_and_every_backend() {
    let list = bitweave().arg("list").output().unwrap();
    let listing = String::from_utf8_lossy(&list.stdout).into_owned();
    let line = listing
        .lines()
        .find(|l| l.starts_with("AEAD backends:"))
        .expect("list shows the AEAD backends");
    let mut ran = 0;
    for b in ["ref", "portable", "avx2", "avx512", "neon"] {
        if line.contains(&format!("{b} (hidden by the CPU cap)")) {
            eprintln!("skipped (hidden by BITWEAVE_CPU): {b}");
            continue;
        }
        let available = line.contains(b) && !line.contains(&format!("{b} (not on this CPU)"));
        if !available {
            eprintln!("skipped (CPU lacks the backend): {b}");
            continue;
        }
        for v in vectors().iter().filter(|v| v.id % 4 == 0) {
            let mut enc = base("aead-enc", v);
            enc.extend(["--nsec", &v.nsec, "--backend", b]);
            let out = pipe(&enc, &v.pt);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.stdout, v.ct, "{} #{} on {b}", v.alg, v.id);
            let mut dec = base("aead-dec", v);
            dec.extend(["--backend", b]);
            let out = pipe(&dec, &v.ct);
            assert!(out.status.success());
            assert_eq!(out.stdout, v.pt, "{} #{} dec on {b}", v.alg, v.id);
            ran += 1;
        }
    }
    assert!(ran >= 30 * 2, "ran {ran}");
}

/// A failing run: no output file (nor nsec file, nor temporary) appears, an existing one is
/// left untouched, and through a pipe nothing reaches stdout.
fn expect_error(args: &[&str], input: &[u8], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (inp, outp, nsecp) = (
        dir.path().join("in"),
        dir.path().join("out"),
        dir.path().join("nsec"),
    );
    std::fs::write(&inp, input).unwrap();
    let with_nsec_out = args[0] == "aead-dec";
    let run = || {
        let mut c = bitweave();
        c.args(args).arg("-i").arg(&inp).arg("-o").arg(&outp);
        if with_nsec_out {
            c.arg("--nsec-out").arg(&nsecp);
        }
        c.output().unwrap()
    };
    check_failure(&run(), message, args);
    assert_eq!(names(dir.path()), ["in"], "{args:?} left files");
    std::fs::write(&outp, b"precious").unwrap();
    std::fs::write(&nsecp, b"also precious").unwrap();
    check_failure(&run(), message, args);
    assert_eq!(std::fs::read(&outp).unwrap(), b"precious");
    assert_eq!(std::fs::read(&nsecp).unwrap(), b"also precious");
    assert_eq!(
        names(dir.path()),
        ["in", "nsec", "out"],
        "{args:?} left files"
    );
    check_failure(&pipe(args, input), message, args);
}

const K16: &str = "000102030405060708090a0b0c0d0e0f";
const N16: &str = "f0e0d0c0b0a090807060504030201000";
const S32: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

#[test]
fn each_error_has_its_own_message_and_leaves_no_file() {
    let enc = |extra: &[&'static str]| {
        let mut a = vec![
            "aead-enc",
            "-c",
            "pi32cipher128v2",
            "-K",
            K16,
            "--npub",
            N16,
            "--nsec",
            S32,
        ];
        a.extend_from_slice(extra);
        a
    };
    let with = |mut a: Vec<&'static str>, flag: &'static str, val: &'static str| {
        let i = a.iter().position(|x| *x == flag).unwrap();
        a[i + 1] = val;
        a
    };
    expect_error(
        &with(enc(&[]), "-K", "0011"),
        b"x",
        "wrong key length for pi32cipher128v2: expected 16 bytes, got 2",
    );
    expect_error(
        &with(enc(&[]), "-K", "zz"),
        b"x",
        "key (-K) is not valid hex: bad digit at position 1",
    );
    expect_error(
        &with(enc(&[]), "-K", "000"),
        b"x",
        "key (-K) is not valid hex: odd number of digits",
    );
    expect_error(
        &with(enc(&[]), "--npub", "0011"),
        b"x",
        "wrong public message number (npub) length for pi32cipher128v2: expected 16 bytes, got 2",
    );
    expect_error(
        &with(enc(&[]), "--npub", "0g"),
        b"x",
        "npub (--npub) is not valid hex",
    );
    expect_error(
        &with(enc(&[]), "--nsec", "00112233"),
        b"x",
        "wrong secret message number (nsec) length for pi32cipher128v2: expected 32 bytes, got 4",
    );
    expect_error(
        &with(enc(&[]), "--nsec", "xyz"),
        b"x",
        "nsec (--nsec) is not valid hex",
    );
    expect_error(
        &enc(&["--ad", "abc"]),
        b"x",
        "AD (--ad) is not valid hex: odd number of digits",
    );
    expect_error(
        &with(enc(&[]), "-c", "pi32cipher512v2"),
        b"x",
        "unknown cipher 'pi32cipher512v2'",
    );
    expect_error(
        &enc(&["--backend", "nosuch"]),
        b"x",
        "unknown backend 'nosuch'",
    );
    let no_nsec: Vec<&str> = enc(&[]).into_iter().take(7).collect();
    expect_error(
        &no_nsec,
        b"x",
        "pi32cipher128v2 needs a secret message number: --nsec with 32 bytes as hex",
    );

    // Decryption: build a real ciphertext, then break it.
    let good = pipe(&enc(&["--ad", "a0a1"]), b"attack at dawn");
    assert!(good.status.success());
    let c = good.stdout;
    assert_eq!(c.len(), 32 + 14 + 32);
    let dec = vec![
        "aead-dec",
        "-c",
        "pi32cipher128v2",
        "-K",
        K16,
        "--npub",
        N16,
        "--ad",
        "a0a1",
    ];
    assert_eq!(pipe(&dec, &c).stdout, b"attack at dawn");
    let tag = "authentication failed: tag mismatch (wrong key, nonce or data, or tampering)";
    for i in [0, 31, 32, 40, 45, 46, c.len() - 1] {
        let mut bad = c.clone();
        bad[i] ^= 0x04;
        expect_error(&dec, &bad, tag);
    }
    expect_error(&with(dec.clone(), "--ad", "a0a2"), &c, tag);
    expect_error(&with(dec.clone(), "--npub", K16), &c, tag);
    expect_error(&with(dec.clone(), "-K", N16), &c, tag);
    expect_error(
        &dec,
        &c[..63],
        "ciphertext too short for pi32cipher128v2: 63 bytes, but the encrypted nsec and tag alone take 64",
    );
    expect_error(&dec, &c[..c.len() - 1], tag);
    let mut dec_nsec = dec.clone();
    dec_nsec.extend(["--nsec", S32]);
    expect_error(&dec_nsec, &c, "--nsec applies to aead-enc only");
    let enc_nsec_out = enc(&["--nsec-out", "x"]);
    expect_error(&enc_nsec_out, b"x", "--nsec-out applies to aead-dec only");
}

#[test]
fn unreadable_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let outp = dir.path().join("out");
    let out = bitweave()
        .args([
            "aead-enc",
            "-c",
            "pi64cipher128v2",
            "-K",
            K16,
            "--npub",
            N16,
            "--nsec",
            &S32.repeat(2),
            "-i",
        ])
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
    let out = bitweave()
        .args([
            "aead-enc",
            "-c",
            "pi32cipher128v2",
            "-K",
            "deadbeefdeadbeefdeadbeefdeadbeefff",
            "--npub",
            N16,
            "--nsec",
            S32,
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("deadbeef"), "{stderr}");
}

#[test]
fn list_shows_the_aead_variants() {
    let out = bitweave().arg("list").output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    for v in [
        "pi16cipher096v2",
        "pi16cipher128v2",
        "pi32cipher128v2",
        "pi32cipher256v2",
        "pi64cipher128v2",
        "pi64cipher256v2",
    ] {
        assert!(s.contains(v), "list lacks {v}");
    }
    assert!(s.contains("AEAD backends: ref, portable"));
}

/// Inputs spanning several 1 MiB read pieces stream through: the ciphertext equals the
/// library's one-shot bytes, decryption (file and pipe) gives the input back, and a forgery
/// in the last piece — after megabytes of plaintext were already decrypted — leaves no
/// file and puts nothing on stdout.
#[test]
fn large_inputs_stream_and_forgeries_release_nothing() {
    use bitweave::aead::{PiCipher, PiVariant};
    let s64 = S32.repeat(2);
    let data: Vec<u8> = (0..3 * (1usize << 20) + 12_345)
        .map(|i| (i * 31 + i / 977) as u8)
        .collect();
    for (alg, nsec) in [
        ("pi64cipher128v2", s64.as_str()),
        ("pi16cipher128v2", &S32[..32]),
    ] {
        let npub = if alg.starts_with("pi16") {
            &N16[..8]
        } else {
            N16
        };
        let enc = [
            "aead-enc", "-c", alg, "-K", K16, "--npub", npub, "--nsec", nsec, "--ad", "a1b2c3",
        ];
        let (out, ct, files) = run_files(&enc, &data);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(files, ["in", "out"]);
        let v: PiVariant = alg.parse().unwrap();
        let want = PiCipher::new(v, &hex::decode(K16).unwrap())
            .unwrap()
            .encrypt(
                &hex::decode(npub).unwrap(),
                &hex::decode(nsec).unwrap(),
                &[0xa1, 0xb2, 0xc3],
                &data,
            )
            .unwrap();
        let ct = ct.unwrap();
        assert!(
            ct == want,
            "{alg}: streamed ciphertext differs from one-shot"
        );
        assert!(pipe(&enc, &data).stdout == want, "{alg}: piped");

        let dec = [
            "aead-dec", "-c", alg, "-K", K16, "--npub", npub, "--ad", "a1b2c3",
        ];
        let (out, pt, _) = run_files(&dec, &ct);
        assert!(out.status.success());
        assert!(pt.unwrap() == data, "{alg}: file round trip");
        assert!(pipe(&dec, &ct).stdout == data, "{alg}: pipe round trip");

        let mut forged = ct.clone();
        let n = forged.len();
        forged[n - 70] ^= 0x20;
        let tag = "authentication failed: tag mismatch (wrong key, nonce or data, or tampering)";
        expect_error(&dec, &forged, tag);
    }
}
