//! `bitweave bench` beyond the plain table: the paper-table layout, π-Cipher rows, and
//! the plot files (SVG always; PNG where a system font is installed).

mod common;

use common::{bitweave, check_failure, names};

/// Quick bench arguments: tiny buffers and budgets (figures are not checked here, only
/// the shape of the output).
const QUICK: [&str; 4] = ["--size", "2048", "--time-ms", "1"];

#[test]
fn tables_print_both_directions_and_every_mode_per_backend() {
    let out = bitweave()
        .args(["bench", "--tables", "-c", "des", "--backend", "sliced64"])
        .args(QUICK)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Table VI-style: des"), "{text}");
    assert!(text.contains("(a) encryption") && text.contains("(b) decryption"));
    // A line per backend with five figures and the chained/ECB column; N = 64 lanes.
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("sliced64"))
        .expect("a sliced64 line");
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields.len(), 8, "{line}");
    assert_eq!(fields[1], "64", "interleave = lane count: {line}");
    assert!(text.contains("OpenSSL"), "{text}");
}

#[test]
fn aead_rows_are_json_rows_with_the_goptv_anchor() {
    let rows = bench_json(&["-c", "pi32cipher128v2", "--direction", "enc"], &QUICK);
    // One row per message count: one message, and a full set of lanes where the backend
    // has lanes (`portable`, the default without AVX2 or NEON, runs one at a time).
    let backend = rows[0]["backend"].as_str().unwrap().to_string();
    let one_at_a_time = backend == "portable";
    if one_at_a_time {
        eprintln!("one row: {backend} runs one message per call (no lanes on this CPU)");
    }
    let expected = if one_at_a_time { 1 } else { 2 };
    assert_eq!(rows.len(), expected, "one message and a full set of lanes");
    for r in &rows {
        assert_eq!(r["cipher"], "pi32cipher128v2");
        let cpb = r["cycles_per_byte"].as_f64().unwrap();
        assert!(cpb > 0.0);
        // The anchor is quoted, and says so; the ratio is computed against this run.
        assert_eq!(r["quoted"], true, "a quoted figure says so");
        let anchor = r["anchor_cycles_per_byte"].as_f64().unwrap();
        let ratio = r["ratio_vs_anchor"].as_f64().unwrap();
        assert!((ratio - anchor / cpb).abs() < 1e-9 * ratio, "{r}");
    }
    assert_eq!(rows[0]["interleave"], 1);
    if !one_at_a_time {
        assert!(rows[1]["interleave"].as_u64().unwrap() > 1);
    }
}

#[test]
fn plot_writes_an_svg_with_the_mode_panel() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fig.svg");
    let out = bitweave()
        .args([
            "bench",
            "-c",
            "aes-128-ecb",
            "-c",
            "aes-128-ctr",
            "--threads",
            "1,2",
        ])
        .args(QUICK)
        .arg("--plot")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    assert!(svg.contains("cycles/byte per mode"), "mode panel");
    assert!(svg.contains("throughput against threads"), "threads panel");
    assert_eq!(names(dir.path()), ["fig.svg"], "no temporary file left");
}

#[test]
fn plot_writes_a_png_when_a_font_is_installed() {
    if !std::path::Path::new("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf").exists() {
        eprintln!("skipped: no DejaVu font (Debian: fonts-dejavu-core)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fig.png");
    let out = bitweave()
        .args(["bench", "-c", "seed-ecb", "--direction", "enc"])
        .args(QUICK)
        .arg("--plot")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(&path).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn plot_with_an_unknown_extension_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fig.jpg");
    let path = path.to_str().unwrap();
    let args = ["bench", "-c", "aes-128-ecb", "--plot", path];
    let out = bitweave().args(args).args(QUICK).output().unwrap();
    check_failure(&out, ".svg or .png", &args);
    assert!(names(dir.path()).is_empty(), "no file left behind");
}

/// `--key-setup` rows say so in the JSON, and a fresh context per call costs bitweave more
/// per byte than the reused one at 16 bytes (the key schedule is in every call).
#[test]
fn key_setup_rows_are_marked_and_include_the_key_schedule() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let args = ["-c", "aes-128-ctr", "--direction", "enc", "--size", "16"];
        let rows = bench_json(&args, &[&["--time-ms", "5"][..], extra].concat());
        assert_eq!(rows.len(), 1);
        rows[0].clone()
    };
    let reused = run(&[]);
    let fresh = run(&["--key-setup"]);
    assert!(reused.get("key_setup").is_none(), "{reused}");
    assert_eq!(fresh["key_setup"], true);
    let cpb = |r: &serde_json::Value| r["cycles_per_byte"].as_f64().unwrap();
    assert!(cpb(&fresh) > cpb(&reused), "{fresh} vs {reused}");
}

/// `bitweave bench ARGS EXTRA --json`, which must succeed: its rows.
fn bench_json(args: &[&str], extra: &[&str]) -> Vec<serde_json::Value> {
    let out = bitweave()
        .arg("bench")
        .args(args)
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A report whose reader goes away (`bitweave bench | head -1`) ends quietly, killed by
/// SIGPIPE as `ls` would be, instead of panicking with a backtrace on its next line.
#[test]
fn bench_into_a_closed_pipe_ends_without_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = bitweave()
        .args(["bench", "-c", "aes-128", "--quiet"])
        .args(QUICK)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("bitweave bench"), "{first}");
    // The pipe's read end is closed here; the bench has rows left to print.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(13), "{:?}: {stderr}", out.status);
}
