//! What `-o` and `-i` do with what is at the path, for every command that writes: a FIFO
//! and `/dev/null` are written through and stay what they were, a symlink stays a link
//! and its target gets the output, `-` is standard input or output, a directory is refused
//! with the user's path in the message, never an internal temporary's.

mod common;

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{bitweave, check_failure, names, run_with_files};

const KEY: &str = "000102030405060708090a0b0c0d0e0f";
const IV: &str = "0f0e0d0c0b0a09080706050403020100";
const PI_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const PI_NPUB: &str = "000102030405060708090a0b0c0d0e0f";
const PI_NSEC: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// Plaintext used everywhere: a few blocks and a partial one.
fn plain() -> Vec<u8> {
    (0..100u8).collect()
}

/// One command that writes, with its name, its arguments (without -i/-o) and the input
/// it expects; `open` undoes a randomised output (seal's salt and nonce) for checking.
struct Case {
    name: &'static str,
    args: Vec<String>,
    input: Vec<u8>,
    open: Option<Vec<String>>,
}

impl Case {
    /// Checks bytes the command wrote against what it writes to standard output (or,
    /// for a randomised output, that opening it gives the plaintext back).
    fn check(&self, got: &[u8], what: &str) {
        match &self.open {
            None => assert_eq!(got, expected(self), "{}: {what}", self.name),
            Some(open) => {
                let back = pipe(open, got);
                assert_eq!(back, plain(), "{}: {what} does not open", self.name);
            }
        }
    }
}

/// Runs `args` with `input` on standard input; returns standard output (must succeed).
fn pipe(args: &[String], input: &[u8]) -> Vec<u8> {
    let out = bitweave()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(input)?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    out.stdout
}

/// Every writing command, each with a valid input (the decrypting ones get the output of
/// their encrypting twin, made through a plain file).
fn cases(dir: &Path) -> Vec<Case> {
    let key_file = dir.join("key");
    std::fs::write(&key_file, [7u8; 32]).unwrap();
    let kf = key_file.to_string_lossy().into_owned();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let enc = s(&["enc", "-c", "aes-128-cbc", "-K", KEY, "--iv", IV]);
    let dec = s(&["dec", "-c", "aes-128-cbc", "-K", KEY, "--iv", IV]);
    let seal = s(&["seal", "--chunk-size", "1K", "--key-file", &kf]);
    let open = s(&["open", "--key-file", &kf]);
    let aenc = s(&[
        "aead-enc",
        "-c",
        "pi32cipher128v2",
        "-K",
        PI_KEY,
        "--npub",
        PI_NPUB,
        "--nsec",
        PI_NSEC,
    ]);
    let adec = s(&[
        "aead-dec",
        "-c",
        "pi32cipher128v2",
        "-K",
        PI_KEY,
        "--npub",
        PI_NPUB,
    ]);
    let through = |args: &[String]| pipe(args, &plain());
    vec![
        Case {
            name: "enc",
            input: plain(),
            args: enc.clone(),
            open: None,
        },
        Case {
            name: "dec",
            input: through(&enc),
            args: dec,
            open: None,
        },
        Case {
            name: "seal",
            input: plain(),
            args: seal.clone(),
            open: Some(open.clone()),
        },
        Case {
            name: "open",
            input: through(&seal),
            args: open,
            open: None,
        },
        Case {
            name: "aead-enc",
            input: plain(),
            args: aenc.clone(),
            open: None,
        },
        Case {
            name: "aead-dec",
            input: through(&aenc),
            args: adec,
            open: None,
        },
    ]
}

/// What `case` writes to standard output for its input (the reference).
fn expected(case: &Case) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let inp = dir.path().join("in");
    std::fs::write(&inp, &case.input).unwrap();
    let out = bitweave()
        .args(&case.args)
        .arg("-i")
        .arg(&inp)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}: {:?}", case.name, out);
    out.stdout
}

fn run(case: &Case, input: &Path, output: &Path) -> std::process::Output {
    let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
    run_with_files(&args, input, output)
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo");
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases(dir.path()) {
        let inp = dir.path().join("in");
        std::fs::write(&inp, &case.input).unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        // The reader: a thread that drains the FIFO as a consumer process would.
        let path = fifo.clone();
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            std::fs::File::open(path)
                .unwrap()
                .read_to_end(&mut got)
                .unwrap();
            got
        });
        let out = run(&case, &inp, &fifo);
        assert!(out.status.success(), "{}: {:?}", case.name, out);
        case.check(&reader.join().unwrap(), "the reader's bytes");
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{}: the FIFO was replaced", case.name);
        std::fs::remove_file(&fifo).unwrap();
        assert!(
            !names(dir.path()).iter().any(|n| n.starts_with(".bitweave")),
            "{}: a temporary was left",
            case.name
        );
    }
}

#[test]
fn dev_null_stays_a_character_device() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases(dir.path()) {
        let inp = dir.path().join("in");
        std::fs::write(&inp, &case.input).unwrap();
        let out = run(&case, &inp, Path::new("/dev/null"));
        assert!(out.status.success(), "{}: {:?}", case.name, out);
        let meta = std::fs::symlink_metadata("/dev/null").unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "{}: /dev/null is no longer a device",
            case.name
        );
    }
}

#[test]
fn dev_stdout_reaches_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases(dir.path()) {
        let inp = dir.path().join("in");
        std::fs::write(&inp, &case.input).unwrap();
        // /dev/stdout is a link to the pipe the test reads.
        let out = run(&case, &inp, Path::new("/dev/stdout"));
        assert!(out.status.success(), "{}: {:?}", case.name, out);
        case.check(&out.stdout, "standard output");
    }
}

#[test]
fn a_symlink_stays_a_link_and_its_target_gets_the_output() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases(dir.path()) {
        let inp = dir.path().join("in");
        std::fs::write(&inp, &case.input).unwrap();
        let sub = dir.path().join("real");
        std::fs::create_dir_all(&sub).unwrap();
        let target = sub.join("target");
        std::fs::write(&target, b"old contents").unwrap();
        // A chain of two links, the first relative.
        let second = dir.path().join("second");
        let first = dir.path().join("first");
        for p in [&first, &second] {
            let _ = std::fs::remove_file(p);
        }
        std::os::unix::fs::symlink(&target, &second).unwrap();
        std::os::unix::fs::symlink("second", &first).unwrap();
        let out = run(&case, &inp, &first);
        assert!(out.status.success(), "{}: {:?}", case.name, out);
        for link in [&first, &second] {
            let kind = std::fs::symlink_metadata(link).unwrap().file_type();
            assert!(kind.is_symlink(), "{}: {link:?} was replaced", case.name);
        }
        case.check(&std::fs::read(&target).unwrap(), "the link's target");
        assert_eq!(names(&sub), ["target"], "{}: stray files", case.name);
        // A dangling link: its target is created.
        std::fs::remove_file(&target).unwrap();
        let out = run(&case, &inp, &first);
        assert!(out.status.success(), "{}: {:?}", case.name, out);
        case.check(
            &std::fs::read(&target).unwrap(),
            "a dangling link's new target",
        );
        assert!(std::fs::symlink_metadata(&first)
            .unwrap()
            .file_type()
            .is_symlink());
    }
}

#[test]
fn a_failed_run_through_a_symlink_leaves_the_target_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    std::fs::write(&target, b"old contents").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let inp = dir.path().join("in");
    std::fs::write(&inp, [1u8; 33]).unwrap(); // not whole blocks: bad CBC ciphertext
    let args = ["dec", "-c", "aes-128-cbc", "-K", KEY, "--iv", IV];
    let out = bitweave()
        .args(args)
        .arg("-i")
        .arg(&inp)
        .arg("-o")
        .arg(&link)
        .output()
        .unwrap();
    check_failure(&out, "", &args);
    assert_eq!(std::fs::read(&target).unwrap(), b"old contents");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(names(dir.path()), ["in", "link", "target"]);
}

#[test]
fn dash_means_standard_input_and_output() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases(dir.path()) {
        let mut child = bitweave()
            .args(&case.args)
            .args(["-i", "-", "-o", "-"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&case.input).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}: {:?}", case.name, out);
        case.check(&out.stdout, "standard output");
        assert!(
            !dir.path().join("-").exists(),
            "{}: wrote a file named '-'",
            case.name
        );
    }
}

#[test]
fn errors_name_the_users_path_never_a_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let inp = dir.path().join("in");
    std::fs::write(&inp, plain()).unwrap();
    let missing: PathBuf = dir.path().join("nodir").join("out");
    for case in cases(dir.path()) {
        let mut args: Vec<String> = case.args.clone();
        args.extend(["-i".into(), inp.to_string_lossy().into()]);
        args.extend(["-o".into(), missing.to_string_lossy().into()]);
        let out = bitweave().args(&args).output().unwrap();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        check_failure(
            &out,
            &format!("cannot write '{}'", missing.display()),
            &refs,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains(".bitweave-"), "{}: {err}", case.name);
        assert!(!err.contains("os error"), "{}: {err}", case.name);

        // A directory as output.
        let mut args: Vec<String> = case.args.clone();
        args.extend(["-i".into(), inp.to_string_lossy().into()]);
        args.extend(["-o".into(), dir.path().to_string_lossy().into()]);
        let out = bitweave().args(&args).output().unwrap();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        check_failure(&out, "is a directory", &refs);

        // A missing input.
        let mut args: Vec<String> = case.args.clone();
        let nofile = dir.path().join("nofile");
        args.extend(["-i".into(), nofile.to_string_lossy().into()]);
        let out = bitweave().args(&args).output().unwrap();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        check_failure(
            &out,
            &format!(
                "cannot read '{}': no such file or directory",
                nofile.display()
            ),
            &refs,
        );
    }
}
