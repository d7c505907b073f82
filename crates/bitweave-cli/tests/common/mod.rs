//! Helpers shared by the CLI test files: running the binary and checking the error
//! contract (one `error:` line, exit code 1, nothing on stdout).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `bitweave` binary under test.
pub fn bitweave() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitweave"))
}

/// The library's KAT files.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bitweave/tests/vectors")
}

/// File names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

/// Runs `bitweave ARGS -i input -o output`.
pub fn run_with_files(args: &[&str], input: &Path, output: &Path) -> Output {
    bitweave()
        .args(args)
        .arg("-i")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap()
}

/// A failed run: exit code 1, exactly one line on stderr starting with `error: ` and
/// containing `message`, no panic, nothing on stdout.
pub fn check_failure(out: &Output, message: &str, args: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: want one line, got {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    assert!(
        lines[0].contains(message),
        "{args:?}: '{stderr}' lacks '{message}'"
    );
    assert!(!stderr.contains("panicked"));
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
}

/// A usage error (a malformed command line): exit status 2, `error: ` and `message` on the
/// first line, then the command's usage, nothing on standard output.
pub fn check_usage_error(out: &Output, message: &str, args: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("error: ") && first.contains(message),
        "{args:?}: {stderr}"
    );
    assert!(stderr.contains("Usage: bitweave "), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"));
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
}
