//! Runs the harness binary's `ctgrind` command under valgrind memcheck and sorts the
//! reports into allowed public decisions ([`crate::allow`]) and leaks.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::allow::{self, Resolved};
use crate::vgxml::{self, Report};

/// Exit code valgrind is told to use when it reported any error.
pub const VG_ERROR_EXIT: i32 = 99;

/// What one valgrind run found.
#[derive(Debug)]
pub struct Outcome {
    /// The process's exit code (`None`: killed by a signal).
    pub exit: Option<i32>,
    /// The harness's per-target lines.
    pub stdout: String,
    pub stderr: String,
    /// Reports at an allowed decision, with the site.
    pub allowed: Vec<(Report, Resolved)>,
    /// Every other report: a leak.
    pub leaks: Vec<Report>,
    pub seconds: f64,
}

impl Outcome {
    /// The harness's count of new reports for `target` (`None`: it did not run).
    pub fn reports_for(&self, target: &str) -> Option<u64> {
        let prefix = format!("ran {target}: ");
        self.stdout
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    }

    /// Lines where the harness itself failed a target.
    pub fn failures(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.starts_with("FAIL"))
            .collect()
    }

    /// Every leak, readable.
    pub fn leak_text(&self) -> String {
        self.leaks
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Whether valgrind is installed (`valgrind --version` runs).
pub fn valgrind_version() -> Option<String> {
    let out = Command::new("valgrind").arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs `bin ctgrind targets...` under memcheck with the environment variables `env` set,
/// killed after `limit`. `root` is the workspace root (for the allowed decisions' lines).
///
/// The tier cap `BITWEAVE_CPU` is not passed on: it picks the defaults a tier would get,
/// and the targets here are backends named one by one, each checked wherever the CPU (as
/// valgrind presents it) runs it. Under a cap such as `aesni` the AVX2 targets would
/// otherwise be refused and the check fail for want of features the machine has.
pub fn run(
    bin: &Path,
    root: &Path,
    targets: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
) -> Result<Outcome, String> {
    let sites = allow::resolve(root)?;
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let xml = dir.path().join("memcheck.xml");
    let start = Instant::now();
    let mut child = Command::new("valgrind")
        .arg("--tool=memcheck")
        .arg(format!("--error-exitcode={VG_ERROR_EXIT}"))
        .arg("--xml=yes")
        .arg(format!("--xml-file={}", xml.display()))
        .arg("--read-inline-info=yes")
        .arg("--leak-check=no")
        .arg(bin)
        .arg("ctgrind")
        .args(targets)
        .env_remove("BITWEAVE_CPU")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!("cannot start valgrind ({e}): install it (apt-get install valgrind)")
        })?;
    // Read the pipes on threads so a chatty child cannot block on a full pipe.
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut so, &mut s).ok();
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut se, &mut s).ok();
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break st;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            return Err(format!("valgrind run exceeded {limit:?}: {targets:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let text = std::fs::read_to_string(&xml).unwrap_or_default();
    let reports = vgxml::parse(&text).map_err(|e| format!("{e}\nstderr:\n{stderr}"))?;
    let mut allowed = Vec::new();
    let mut leaks = Vec::new();
    for r in reports {
        match allow::allowing(&r, &sites) {
            Some(s) => allowed.push((r, *s)),
            None => leaks.push(r),
        }
    }
    Ok(Outcome {
        exit: status.code(),
        stdout,
        stderr,
        allowed,
        leaks,
        seconds: start.elapsed().as_secs_f64(),
    })
}
