//! `bitweave enc/dec --pass`: openssl's password-based "Salted__" files, both ways and byte
//! for byte, against the `openssl` binary — every cipher family, both KDFs and their
//! digests, -nosalt, -S, every password source — and the bad inputs (wrong password, short
//! or foreign header) each with one error line and no output file.

mod common;

use std::path::Path;
use std::process::Command;

use common::{bitweave, check_failure, check_usage_error, run_with_files};

fn openssl(args: &[&str], input: &Path, output: &Path) {
    let out = Command::new("openssl")
        .arg("enc")
        .args(["-provider", "legacy", "-provider", "default"])
        .args(args)
        .arg("-in")
        .arg(input)
        .arg("-out")
        .arg(output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl enc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Our KDF flags and openssl's spelling of the same.
const KDFS: [(&[&str], &[&str]); 5] = [
    (&[], &[]),
    (&["--md", "md5"], &["-md", "md5"]),
    (&["--pbkdf2"], &["-pbkdf2"]),
    (
        &["--iter", "1000", "--md", "sha512"],
        &["-iter", "1000", "-md", "sha512"],
    ),
    (&["--pbkdf2", "--md", "sha1"], &["-pbkdf2", "-md", "sha1"]),
];

#[test]
fn salted_files_round_trip_with_openssl_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    let data: Vec<u8> = (0..70_001u32).map(|i| (i * 7 + i / 255) as u8).collect();
    std::fs::write(&plain, &data).unwrap();
    let (a, b, back) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    let mut ran = 0;
    for cipher in [
        "aes-256-cbc",
        "aes-128-ctr",
        "aes-192-ofb",
        "des-ede3-cbc",
        "des-cfb",
        "seed-cbc",
        "aes-128-ecb",
    ] {
        for (mine, theirs) in KDFS {
            let mut args = vec!["enc", "-c", cipher, "--pass", "pass:correct horse"];
            args.extend_from_slice(mine);
            let out = run_with_files(&args, &plain, &a);
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let mut oargs = vec!["-d", &*format!("-{cipher}"), "-pass", "pass:correct horse"]
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>();
            oargs.extend(theirs.iter().map(|s| s.to_string()));
            let oargs: Vec<&str> = oargs.iter().map(String::as_str).collect();
            openssl(&oargs, &a, &back);
            assert!(
                std::fs::read(&back).unwrap() == data,
                "openssl cannot read {args:?}"
            );
            openssl(&oargs[1..], &plain, &b);
            args[0] = "dec";
            let out = run_with_files(&args, &b, &back);
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                std::fs::read(&back).unwrap() == data,
                "we cannot read openssl's {args:?}"
            );
            ran += 1;
        }
    }
    eprintln!("ran {ran} cipher x KDF combinations both ways");
}

#[test]
fn fixed_salt_and_no_salt_are_byte_identical_to_openssl() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"attack at dawn, and again at dusk").unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for (mine, theirs) in [
        (
            vec!["-S", "0102030405060708"],
            vec!["-S", "0102030405060708"],
        ),
        (vec!["--nosalt"], vec!["-nosalt"]),
    ] {
        for (kdf, okdf) in KDFS {
            let mut args = vec!["enc", "-c", "aes-256-cbc", "--pass", "pass:pw"];
            args.extend(&mine);
            args.extend_from_slice(kdf);
            assert!(
                run_with_files(&args, &plain, &a).status.success(),
                "{args:?}"
            );
            let mut oargs = vec!["-aes-256-cbc", "-pass", "pass:pw"];
            oargs.extend(&theirs);
            oargs.extend_from_slice(okdf);
            openssl(&oargs, &plain, &b);
            assert_eq!(
                std::fs::read(&a).unwrap(),
                std::fs::read(&b).unwrap(),
                "{args:?}"
            );
        }
    }
    // -P prints what openssl prints.
    let out = bitweave()
        .args([
            "enc",
            "-c",
            "aes-128-cbc",
            "--pass",
            "pass:pw",
            "--pbkdf2",
            "-S",
            "0102030405060708",
            "-P",
        ])
        .output()
        .unwrap();
    let want = Command::new("openssl")
        .args([
            "enc",
            "-aes-128-cbc",
            "-pass",
            "pass:pw",
            "-pbkdf2",
            "-S",
            "0102030405060708",
            "-P",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&want.stdout)
    );
}

#[test]
fn every_password_source_gives_the_same_key() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, vec![42u8; 1000]).unwrap();
    let pwfile = dir.path().join("pw");
    std::fs::write(&pwfile, "s3cret\nignored second line\n").unwrap();
    let reference = dir.path().join("ref");
    let base = [
        "enc",
        "-c",
        "aes-128-cbc",
        "--pbkdf2",
        "-S",
        "a1a2a3a4a5a6a7a8",
    ];
    let mut args = base.to_vec();
    args.extend(["--pass", "pass:s3cret"]);
    assert!(run_with_files(&args, &plain, &reference).status.success());
    let want = std::fs::read(&reference).unwrap();
    let got = |extra: &[&str], env: Option<(&str, &str)>, stdin: Option<Vec<u8>>| {
        let mut cmd = bitweave();
        cmd.args(base).args(extra);
        if let Some((k, v)) = env {
            cmd.env(k, v);
        }
        if let Some(s) = stdin {
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&s).unwrap();
            return child.wait_with_output().unwrap().stdout;
        }
        cmd.arg("-i").arg(&plain).output().unwrap().stdout
    };
    let file = format!("file:{}", pwfile.display());
    assert_eq!(got(&["--pass", &file], None, None), want, "file:");
    assert_eq!(
        got(&["--pass", "env:BW_PW"], Some(("BW_PW", "s3cret")), None),
        want,
        "env:"
    );
    let mut stdin = b"s3cret\n".to_vec();
    stdin.extend(vec![42u8; 1000]);
    assert_eq!(got(&["--pass", "stdin"], None, Some(stdin)), want, "stdin");
}

#[test]
fn bad_salted_input_gives_one_error_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, vec![1u8; 5000]).unwrap();
    // A fixed salt makes the wrong password's outcome fixed: with a random one, its
    // garbage last block ends in valid padding about once in 256 runs and the decryption
    // "succeeds". (openssl -S writes no header; the test writes it.)
    let salt = "0123456789abcdef";
    let body = dir.path().join("body");
    openssl(
        &["-aes-256-cbc", "-pbkdf2", "-pass", "pass:right", "-S", salt],
        &plain,
        &body,
    );
    let mut bytes = b"Salted__".to_vec();
    bytes.extend_from_slice(&[0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]);
    bytes.extend_from_slice(&std::fs::read(&body).unwrap());
    let good = dir.path().join("good");
    std::fs::write(&good, &bytes).unwrap();
    let short = dir.path().join("short");
    std::fs::write(&short, &bytes[..12]).unwrap();
    let foreign = dir.path().join("foreign");
    std::fs::write(&foreign, vec![0u8; 64]).unwrap();
    for (input, pass, message) in [
        (&good, "pass:wrong", "bad decrypt: wrong password"),
        (&short, "pass:right", "'Salted__' with no complete salt"),
        (&foreign, "pass:right", "does not start with 'Salted__'"),
        (&good, "env:BITWEAVE_SURELY_UNSET_VAR", "not set"),
    ] {
        let out_path = dir.path().join("out");
        let args = ["dec", "-c", "aes-256-cbc", "--pbkdf2", "--pass", pass];
        let out = run_with_files(&args, input, &out_path);
        check_failure(&out, message, &args);
        assert!(!out_path.exists(), "{args:?} left an output file");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("right"),
            "password printed"
        );
    }
}

/// A script written for openssl runs with the program name changed: the same argument
/// list, openssl's spelling, gives a file openssl reads, and reads openssl's.
#[test]
fn openssl_argument_spelling_works_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, vec![7u8; 3333]).unwrap();
    let (p, a, b) = (
        plain.to_str().unwrap(),
        dir.path().join("a"),
        dir.path().join("b"),
    );
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for (cipher, kdf) in [
        ("-aes-256-cbc", "-pbkdf2"),
        ("-des3", "-salt"),
        ("-seed", "-pbkdf2"),
    ] {
        let enc = [
            "enc", "-e", cipher, kdf, "-pass", "pass:pw", "-in", p, "-out", a,
        ];
        let out = bitweave().args(enc).output().unwrap();
        assert!(
            out.status.success(),
            "{enc:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dec = [
            "enc", "-d", cipher, kdf, "-pass", "pass:pw", "-in", a, "-out", b,
        ];
        let out = Command::new("openssl")
            .args(dec)
            .args(["-provider", "legacy", "-provider", "default"])
            .output()
            .unwrap();
        assert!(out.status.success(), "openssl {dec:?}");
        assert_eq!(std::fs::read(b).unwrap(), vec![7u8; 3333], "{dec:?}");
        let out = bitweave().args(dec).output().unwrap();
        assert!(
            out.status.success(),
            "{dec:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read(b).unwrap(), vec![7u8; 3333], "ours {dec:?}");
    }
    // An option neither spelling has, or one without its value, is a usage error as a
    // malformed line in bitweave's own spelling is (exit 2, the usage after the message).
    for (bad, message) in [
        (
            &["enc", "-aes-256-gcm", "-in", p][..],
            "Unknown option or cipher: -aes-256-gcm",
        ),
        (
            &["dec", "-bogus", "-in", p],
            "Unknown option or cipher: -bogus",
        ),
        (&["enc", "-x", "-in", p], "unexpected argument '-x'"),
        (&["enc", "-des3", "-in"], "Option -in needs a value"),
    ] {
        check_usage_error(&bitweave().args(bad).output().unwrap(), message, bad);
    }
}

/// `-a` / `-a -A`: the base64 text is openssl's byte for byte (with a raw key and with a
/// password, where openssl's own salt is fixed with -S), each side reads the other's, and
/// text that is not base64 is one error line and no output file.
#[test]
fn base64_output_and_input_match_openssl() {
    let dir = tempfile::tempdir().unwrap();
    let (theirs, ours, back) = (
        dir.path().join("theirs"),
        dir.path().join("ours"),
        dir.path().join("back"),
    );
    let key = [
        "-K",
        "000102030405060708090a0b0c0d0e0f",
        "-iv",
        "0f0e0d0c0b0a09080706050403020100",
    ];
    let salted = ["-pbkdf2", "-pass", "pass:pw", "-S", "0102030405060708"];
    let mut ran = 0;
    for len in [0usize, 1, 31, 47, 48, 49, 5000, 70_001] {
        let plain = dir.path().join(format!("plain{len}"));
        let data: Vec<u8> = (0..len as u32).map(|i| (i * 11 + i / 97) as u8).collect();
        std::fs::write(&plain, &data).unwrap();
        for (cipher, kdf) in [("-aes-128-cbc", &key[..]), ("-aes-256-ctr", &salted[..])] {
            for layout in [&["-a"][..], &["-base64", "-A"][..]] {
                let args: Vec<&str> = [&[cipher][..], kdf, layout].concat();
                openssl(&args, &plain, &theirs);
                let enc: Vec<&str> = [&["enc"][..], &args].concat();
                let out = run_with_files(&enc, &plain, &ours);
                assert!(
                    out.status.success(),
                    "{enc:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(
                    std::fs::read(&ours).unwrap(),
                    std::fs::read(&theirs).unwrap(),
                    "{enc:?} on {len} bytes: not openssl's text"
                );
                let dec: Vec<&str> = [&["enc", "-d"][..], &args].concat();
                let out = run_with_files(&dec, &theirs, &back);
                assert!(
                    out.status.success(),
                    "{dec:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(
                    std::fs::read(&back).unwrap(),
                    data,
                    "{dec:?} on {len} bytes"
                );
                ran += 1;
            }
        }
    }
    assert_eq!(ran, 32);
    let bad = dir.path().join("bad");
    std::fs::write(&bad, b"U2FsdGVk*X19\n").unwrap();
    let out_path = dir.path().join("out");
    let args = [
        "dec",
        "-c",
        "aes-256-cbc",
        "--pbkdf2",
        "--pass",
        "pass:pw",
        "-a",
    ];
    let out = run_with_files(&args, &bad, &out_path);
    check_failure(&out, "not base64 text", &args);
    assert!(!out_path.exists(), "{args:?} left an output file");
}

/// Neither `-K` nor `--pass`: openssl asks for a password on the terminal, and so does
/// bitweave; without a terminal (a new session, as `setsid` makes it) that is one error
/// line naming the alternatives, and no output file.
#[test]
fn without_key_or_password_asks_the_terminal_or_says_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"data").unwrap();
    let out_path = dir.path().join("out");
    let args = ["enc", "-c", "aes-256-cbc", "--pbkdf2"];
    let out = Command::new("setsid")
        .arg(env!("CARGO_BIN_EXE_bitweave"))
        .args(args)
        .arg("-i")
        .arg(&plain)
        .arg("-o")
        .arg(&out_path)
        .output()
        .expect("setsid (util-linux) runs the command without a terminal");
    check_failure(
        &out,
        "no terminal to ask on; give -K HEXKEY or --pass SOURCE",
        &args,
    );
    assert!(!out_path.exists(), "{args:?} left an output file");
}
