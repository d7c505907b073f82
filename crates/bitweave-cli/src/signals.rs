//! Signals: an interrupted run leaves no partial output file behind.
//!
//! SIGINT, SIGTERM and SIGHUP are taken by a watcher thread that removes every temporary
//! output in flight ([`crate::output`]), prints one `error:` line and exits with the shell's
//! code for the signal (128 + its number). SIGXFSZ (a file-size limit, `ulimit -f`) would
//! kill the process by default; with a handler installed the write fails with EFBIG
//! instead and the ordinary error path cleans up. SIGKILL cannot be caught: it may leave a
//! `.bitweave-*.tmp` file beside the target (never the target itself).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::{SIGHUP, SIGINT, SIGPIPE, SIGTERM, SIGXFSZ};
use signal_hook::iterator::Signals;

/// Installs the handlers; call once at start-up. A command that only prints a report
/// (`report`: bench, sim, list) ends quietly when its reader goes away (`bitweave bench |
/// head`), as `ls` does: SIGPIPE takes its default action. Rust ignores SIGPIPE, so the
/// report's next `println!` used to panic with a backtrace. The other commands keep their
/// own error for a closed output ("cannot write to standard output: broken pipe") and the
/// clean-up behind it.
pub fn install(report: bool) {
    let _ =
        signal_hook::flag::register_conditional_default(SIGPIPE, Arc::new(AtomicBool::new(report)));
    // Only flags the signal: its effect is that write(2) returns EFBIG.
    let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let (removed, _no_more_commits) = crate::output::discard_pending();
            let name = match sig {
                SIGINT => "SIGINT",
                SIGTERM => "SIGTERM",
                _ => "SIGHUP",
            };
            let what = if removed > 0 {
                "; the unfinished output file was removed"
            } else {
                ""
            };
            eprintln!("error: interrupted by {name}{what}");
            std::process::exit(128 + sig);
        }
    });
}
