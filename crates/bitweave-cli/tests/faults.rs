//! Faults during a run: a signal, a file-size limit, a full device. Each must end with one
//! clear `error:` line, a non-zero exit, the input untouched and no output file — neither
//! a new one nor a change to an existing one — and no temporary left beside it.
//! (Input failing midway is tested in the CLI's unit tests with a failing reader.)

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{bitweave, names};

const KEY: &str = "000102030405060708090a0b0c0d0e0f";
const IV: &str = "f0e0d0c0b0a090807060504030201000";
/// What the target file holds before the run: it must hold it after a failed run.
const OLD: &[u8] = b"the previous contents\n";

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 131 + i / 7) as u8).collect()
}

/// A directory with an input file, a raw key file and an existing target `out`.
struct Setup {
    dir: tempfile::TempDir,
    input: Vec<u8>,
}

impl Setup {
    fn new(input_len: usize) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let input = data(input_len);
        std::fs::write(dir.path().join("in"), &input).unwrap();
        std::fs::write(dir.path().join("key"), [0x42u8; 32]).unwrap();
        std::fs::write(dir.path().join("out"), OLD).unwrap();
        Setup { dir, input }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The arguments of each command under test, reading `input` and writing `out`.
    fn commands(&self, input: Option<&Path>) -> Vec<Vec<String>> {
        let p = |n: &str| self.path(n).to_str().unwrap().to_string();
        let mut io = vec![];
        if let Some(i) = input {
            io.extend(["-i".to_string(), i.to_str().unwrap().to_string()]);
        }
        io.extend(["-o".to_string(), p("out")]);
        let cmd = |a: &[&str]| -> Vec<String> {
            let mut v: Vec<String> = a.iter().map(|s| s.to_string()).collect();
            v.extend(io.iter().cloned());
            v
        };
        vec![
            cmd(&["enc", "-c", "aes-128-cbc", "-K", KEY, "--iv", IV]),
            cmd(&["dec", "-c", "aes-128-ctr", "-K", KEY, "--iv", IV]),
            cmd(&["seal", "--chunk-size", "64K", "--key-file", &p("key")]),
        ]
    }

    /// The directory holds exactly the files it started with, the input and the target
    /// unchanged.
    fn check_untouched(&self, what: &str) {
        assert_eq!(names(self.dir.path()), ["in", "key", "out"], "{what}");
        assert_eq!(std::fs::read(self.path("out")).unwrap(), OLD, "{what}");
        assert!(
            std::fs::read(self.path("in")).unwrap() == self.input,
            "{what}: input changed"
        );
    }
}

/// Waits until the run has created its temporary output beside the target.
fn wait_for_temporary(dir: &Path, child: &mut Child) {
    let start = Instant::now();
    while !names(dir).iter().any(|n| n.starts_with(".bitweave-")) {
        assert!(child.try_wait().unwrap().is_none(), "exited early");
        assert!(start.elapsed() < Duration::from_secs(60), "no temporary");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_signal_mid_run_removes_the_unfinished_output() {
    for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let s = Setup::new(0);
        for args in s.commands(None) {
            let what = format!("SIG{signal} during {}", args[0]);
            // Input from a pipe that stays open: the run is mid-stream when the signal comes.
            let mut child = bitweave()
                .args(&args)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(&data(3 << 20)).unwrap();
            wait_for_temporary(s.dir.path(), &mut child);
            let killed = Command::new("kill")
                .args(["-s", signal, &child.id().to_string()])
                .status()
                .unwrap();
            assert!(killed.success());
            let out = child.wait_with_output().unwrap();
            drop(stdin);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(128 + number), "{what}: {stderr}");
            assert_eq!(
                stderr.trim_end(),
                format!(
                    "error: interrupted by SIG{signal}; the unfinished output file was removed"
                ),
                "{what}"
            );
            s.check_untouched(&what);
        }
    }
}

/// Runs `args` under `ulimit -f` (a file-size limit far below the output's size).
fn run_with_file_size_limit(args: &[String]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 64 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_bitweave"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_file_size_limit_fails_cleanly() {
    let s = Setup::new(3 << 20);
    for args in s.commands(Some(&s.path("in"))) {
        let what = format!("ulimit -f during {}", args[0]);
        let out = run_with_file_size_limit(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{what}: {stderr}");
        assert!(
            lines[0].starts_with("error: cannot write '") && lines[0].ends_with("file too large"),
            "{what}: {stderr}"
        );
        s.check_untouched(&what);
    }
}

#[test]
fn a_full_device_on_standard_output_is_an_error() {
    let s = Setup::new(3 << 20);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut args = s.commands(Some(&s.path("in")))[0].clone();
    args.truncate(args.len() - 2); // no -o: standard output
    let out = bitweave()
        .args(&args)
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: cannot write to standard output: no space left on device"
    );
    s.check_untouched("enc to /dev/full");
}
