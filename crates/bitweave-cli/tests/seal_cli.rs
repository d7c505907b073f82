//! `bitweave seal` / `bitweave open`: round trips through files and pipes with every way
//! of giving the secret, and every tampering case failing with one `error:` line, exit
//! code 1 and no output file (an existing one left untouched, no temporary left behind).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use common::{bitweave, check_failure, names};

const HEADER: usize = 88;
const CHUNK: usize = 1024;
/// Cheap Argon2 for tests (stored in the header, so `open` needs no flags).
const FAST_KDF: [&str; 6] = [
    "--kdf-memory",
    "64",
    "--kdf-passes",
    "1",
    "--kdf-lanes",
    "1",
];

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 131 + i / 7) as u8).collect()
}

struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Self {
        let d = Dir {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::write(d.path("key"), [0x11u8; 32]).unwrap();
        std::fs::write(d.path("key.hex"), format!("{}\n", "ab".repeat(32))).unwrap();
        std::fs::write(d.path("pass"), "open sesame\nignored second line\n").unwrap();
        d
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    /// The path of `name` as an argument (leaked: a test's few paths live to its end).
    fn arg(&self, name: &str) -> &'static str {
        Box::leak(
            self.path(name)
                .to_str()
                .unwrap()
                .to_owned()
                .into_boxed_str(),
        )
    }
    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap()
    }
}

/// Runs bitweave with `args` (paths already in them), no passphrase in the environment.
fn run(args: &[&str]) -> Output {
    bitweave()
        .args(args)
        .env_remove("BITWEAVE_PASSPHRASE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{what}: stderr not empty");
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Seals `name` with a key file into `name.bw` (1 KiB chunks).
fn seal_key(d: &Dir, name: &str, suite: &str) -> Vec<u8> {
    let out = d.path(&format!("{name}.bw"));
    let r = run(&[
        "seal",
        "--suite",
        suite,
        "--chunk-size",
        "1K",
        "--key-file",
        d.arg("key"),
        "-i",
        d.arg(name),
        "-o",
        s(&out),
    ]);
    ok(&r, "seal");
    std::fs::read(out).unwrap()
}

#[test]
fn key_file_round_trips_every_boundary_and_suite() {
    let d = Dir::new();
    for suite in [
        "aes-256-gcm",
        "aes-256-ctr-hmac-sha256",
        "pi64cipher256v2",
        "pi32cipher256v2",
    ] {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 7 * CHUNK + 3, 40 * CHUNK] {
            let pt = data(n);
            d.write("pt", &pt);
            let sealed = seal_key(&d, "pt", suite);
            assert_eq!(&sealed[..6], b"BWSEAL");
            let r = run(&[
                "open",
                "--key-file",
                d.arg("key"),
                "-i",
                d.arg("pt.bw"),
                "-o",
                d.arg("back"),
            ]);
            ok(&r, "open");
            assert!(d.read("back") == pt, "{suite} {n}");
        }
    }
}

#[test]
fn hex_key_file_and_pipes() {
    let d = Dir::new();
    let pt = data(5000);
    let mut child = bitweave()
        .args(["seal", "--key-file", d.arg("key.hex"), "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&pt).unwrap();
    let sealed = child.wait_with_output().unwrap();
    ok(&sealed, "seal to stdout");
    // The default suite's tag: 16 bytes (aes-256-gcm, id 4) or 32 (the HMAC suite, id 1).
    let tag = if sealed.stdout[7] == 4 { 16 } else { 32 };
    assert_eq!(sealed.stdout.len(), HEADER + pt.len() + tag);
    let mut child = bitweave()
        .args(["open", "--key-file", d.arg("key.hex")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&sealed.stdout)
        .unwrap();
    let back = child.wait_with_output().unwrap();
    ok(&back, "open from stdin");
    assert!(back.stdout == pt);
}

#[test]
fn passphrase_from_file_and_environment() {
    let d = Dir::new();
    let pt = data(3 * CHUNK + 9);
    d.write("pt", &pt);
    let mut args = vec!["seal", "--chunk-size", "1K"];
    args.extend(FAST_KDF);
    args.extend(["--passphrase-file", d.arg("pass")]);
    args.extend(["-i", d.arg("pt"), "-o", d.arg("pt.bw")]);
    ok(&run(&args), "seal with passphrase file");
    // The same passphrase through the environment opens it.
    let r = bitweave()
        .args(["open", "-i", d.arg("pt.bw"), "-o", d.arg("back")])
        .env("BITWEAVE_PASSPHRASE", "open sesame")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    ok(&r, "open with env passphrase");
    assert!(d.read("back") == pt);
    // The header carries the Argon2 costs.
    let sealed = d.read("pt.bw");
    assert_eq!(sealed[8], 1, "argon2id");
    assert_eq!(sealed[12..24], [0, 0, 0, 64, 0, 0, 0, 1, 0, 0, 0, 1]);
}

/// Checks a failed open: the message, and no file beside the input but the ones there
/// before (an existing target untouched).
fn open_fails(d: &Dir, sealed: &[u8], secret: &[&str], message: &str) {
    d.write("bad.bw", sealed);
    d.write("target", b"old contents");
    let before = names(d.dir.path());
    let mut args = vec!["open"];
    args.extend(secret);
    args.extend(["-i", d.arg("bad.bw"), "-o", d.arg("target")]);
    let out = run(&args);
    check_failure(&out, message, &args);
    assert_eq!(names(d.dir.path()), before, "{message}: files changed");
    assert_eq!(d.read("target"), b"old contents");
    std::fs::remove_file(d.path("target")).unwrap();
    let fresh = d.path("fresh");
    let mut args = vec!["open"];
    args.extend(secret);
    args.extend(["-i", d.arg("bad.bw"), "-o", s(&fresh)]);
    check_failure(&run(&args), message, &args);
    assert!(!fresh.exists(), "{message}: output created");
}

#[test]
fn tampering_fails_cleanly() {
    let d = Dir::new();
    let key = ["--key-file", d.arg("key")];
    // 40.5 chunks: more than one window of chunks on any core count here.
    d.write("pt", &data(40 * CHUNK + CHUNK / 2));
    d.write("other", &data(40 * CHUNK + CHUNK / 2));
    for (suite, tag) in [
        ("aes-256-gcm", 16),
        ("aes-256-ctr-hmac-sha256", 32),
        ("pi64cipher256v2", 64),
    ] {
        let good = seal_key(&d, "pt", suite);
        let other = seal_key(&d, "other", suite);
        let rec = CHUNK + tag;
        let at = |i: usize| HEADER + i * rec;
        open_fails(&d, &good[..at(2)], &key, "truncated: chunk 1 is authentic");
        open_fails(
            &d,
            &good[..at(39)],
            &key,
            "truncated: chunk 38 is authentic",
        );
        open_fails(
            &d,
            &good[..at(2) + 100],
            &key,
            "chunk 2 failed authentication",
        );
        open_fails(&d, &good[..at(1) + 10], &key, "inside the tag of chunk 1");
        open_fails(&d, &good[..HEADER - 1], &key, "ends inside the header");
        let mut ext = good.clone();
        ext.extend_from_slice(b"more");
        open_fails(&d, &ext, &key, "chunk 40 failed authentication");
        let mut swap = good.clone();
        swap[at(3)..at(4)].copy_from_slice(&good[at(4)..at(5)]);
        swap[at(4)..at(5)].copy_from_slice(&good[at(3)..at(4)]);
        open_fails(&d, &swap, &key, "chunk 3 failed authentication");
        let mut splice = good.clone();
        splice[at(30)..at(31)].copy_from_slice(&other[at(30)..at(31)]);
        open_fails(&d, &splice, &key, "chunk 30 failed authentication");
        for (byte, mask, message) in [
            (0, 0x04, "not a bitweave sealed file"),
            (6, 0x04, "unsupported sealed-file version"),
            (9, 0x10, "invalid header: chunk size"),
            (30, 0x04, "all-zero salt"),
            (45, 0x04, "wrong passphrase or key"),
            (HEADER - 1, 0x04, "wrong passphrase or key"),
            (at(0) + 5, 0x04, "chunk 0 failed authentication"),
            (at(20) + CHUNK + 3, 0x04, "chunk 20 failed authentication"),
            (good.len() - 1, 0x04, "chunk 40 failed authentication"),
        ] {
            let mut t = good.clone();
            t[byte] ^= mask;
            open_fails(&d, &t, &key, message);
        }
        // Another valid suite id in the header.
        let mut t = good.clone();
        t[7] = if t[7] == 1 { 2 } else { 1 };
        open_fails(&d, &t, &key, "wrong passphrase or key");
    }
    d.write("key2", &[0x12u8; 32]);
    let sealed = d.read("pt.bw");
    open_fails(
        &d,
        &sealed,
        &["--key-file", d.arg("key2")],
        "wrong passphrase or key",
    );
    open_fails(
        &d,
        &sealed,
        &["--passphrase-file", d.arg("pass")],
        "sealed with a key file",
    );
}

#[test]
fn wrong_passphrase_fails_cleanly() {
    let d = Dir::new();
    d.write("pt", &data(100));
    let mut args = vec!["seal"];
    args.extend(FAST_KDF);
    args.extend(["--passphrase-file", d.arg("pass")]);
    args.extend(["-i", d.arg("pt"), "-o", d.arg("pt.bw")]);
    ok(&run(&args), "seal");
    d.write("wrong", b"open sesame!\n");
    let sealed = d.read("pt.bw");
    open_fails(
        &d,
        &sealed,
        &["--passphrase-file", d.arg("wrong")],
        "wrong passphrase or key",
    );
    open_fails(
        &d,
        &sealed,
        &["--key-file", d.arg("key")],
        "sealed with a passphrase",
    );
}

#[test]
fn bad_arguments_fail_before_any_output() {
    let d = Dir::new();
    d.write("pt", b"x");
    d.write("short-key", &[1u8; 31]);
    d.write("empty-pass", b"\n");
    let out = d.arg("out");
    let inp = d.arg("pt");
    let key = d.arg("key");
    for (args, message) in [
        (
            vec![
                "seal",
                "--key-file",
                d.arg("short-key"),
                "-i",
                inp,
                "-o",
                out,
            ],
            "must hold 32 raw bytes or 64 hex digits (it has 31 bytes)",
        ),
        (
            vec![
                "seal",
                "--passphrase-file",
                d.arg("empty-pass"),
                "-i",
                inp,
                "-o",
                out,
            ],
            "the passphrase is empty",
        ),
        (
            vec![
                "seal",
                "--suite",
                "aes-128-gcm",
                "--key-file",
                key,
                "-i",
                inp,
                "-o",
                out,
            ],
            "unknown suite 'aes-128-gcm'",
        ),
        (
            vec![
                "seal",
                "--chunk-size",
                "3K",
                "--key-file",
                key,
                "-i",
                inp,
                "-o",
                out,
            ],
            "power of two",
        ),
        (
            vec![
                "seal",
                "--kdf-memory",
                "4",
                "--key-file",
                key,
                "-i",
                inp,
                "-o",
                out,
            ],
            "Argon2 memory",
        ),
        (
            vec!["seal", "--key-file", d.arg("nokey"), "-i", inp, "-o", out],
            "cannot read key file",
        ),
        (
            vec!["seal", "--key-file", key, "-i", d.arg("missing"), "-o", out],
            "cannot read",
        ),
        (
            vec!["open", "--key-file", key, "-i", inp, "-o", out],
            "not a bitweave sealed file",
        ),
    ] {
        check_failure(&run(&args), message, &args);
        assert!(!d.path("out").exists(), "{args:?}");
    }
}

#[test]
fn quiet_and_progress_change_no_bytes() {
    // Not a terminal here, so the bar is off either way; --quiet is accepted everywhere
    // and the bytes are those of `openssl enc`'s contract, unchanged.
    let d = Dir::new();
    let pt = data(3 << 20);
    d.write("pt", &pt);
    let enc = |extra: &[&str], out: &str| {
        let mut args = vec![
            "enc",
            "-c",
            "aes-128-ctr",
            "-K",
            "000102030405060708090a0b0c0d0e0f",
            "--iv",
            "0f0e0d0c0b0a09080706050403020100",
            "-i",
            d.arg("pt"),
            "-o",
        ];
        let p = d.path(out);
        args.push(s(&p));
        args.extend(extra);
        let r = run(&args);
        ok(&r, "enc");
        d.read(out)
    };
    assert!(enc(&[], "a") == enc(&["--quiet"], "b"));
    let r = run(&[
        "--quiet",
        "open",
        "--key-file",
        d.arg("key"),
        "-i",
        d.arg("pt"),
    ]);
    check_failure(&r, "not a bitweave sealed file", &["open"]);
}

/// Without `--suite`, `seal` writes the fastest suite for the CPU: AES-256-GCM (id 4)
/// where GHASH has a carry-less multiply (x86-64 PCLMULQDQ and SSSE3), else
/// AES-256-CTR + HMAC-SHA-256 (id 1) — and the tier cap lowers it like every backend.
#[test]
fn default_suite_is_the_fastest_here() {
    let d = Dir::new();
    d.write("pt", &data(3000));
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let clmul = cfg!(target_arch = "x86_64")
        && cpuinfo.contains(" pclmulqdq")
        && cpuinfo.contains(" ssse3");
    for (cap, want) in [(None, if clmul { 4 } else { 1 }), (Some("portable"), 1)] {
        let out = d.path("pt.bw");
        let _ = std::fs::remove_file(&out);
        let mut cmd = bitweave();
        if let Some(cap) = cap {
            cmd.env("BITWEAVE_CPU", cap);
        } else {
            cmd.env_remove("BITWEAVE_CPU");
        }
        let r = cmd
            .args([
                "seal",
                "--quiet",
                "--key-file",
                d.arg("key"),
                "-i",
                d.arg("pt"),
                "-o",
                s(&out),
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        ok(&r, "seal with the default suite");
        let sealed = std::fs::read(&out).unwrap();
        println!(
            "cap {cap:?}: default suite id {} (carry-less multiply: {clmul})",
            sealed[7]
        );
        assert_eq!(sealed[7], want, "default suite under cap {cap:?}");
    }
}
