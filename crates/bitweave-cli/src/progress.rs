//! A progress bar on standard error for long work: bytes, rate and ETA. It draws only when
//! stderr is a terminal and `--quiet` is off, appears only after the work has run for a
//! moment (short runs never flash a bar), and erases itself when done or dropped, so the
//! `error:` line and every output byte stay exactly as without it.

use std::io::{self, IsTerminal, Read};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this shows no bar.
const SHOW_AFTER: Duration = Duration::from_millis(700);

/// Progress of one piece of work, in bytes.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: bool,
}

impl Progress {
    /// `total_bytes` gives a percentage and ETA when known (an input file's size); `label`
    /// names the work (`seal`, `enc`...); `quiet` turns the bar off.
    pub fn new(total_bytes: Option<u64>, label: &str, quiet: bool) -> Progress {
        let bar = (!quiet && io::stderr().is_terminal()).then(|| {
            let (bar, template) = match total_bytes {
                Some(n) => (
                    ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
                    "{prefix} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
                ),
                None => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
                    "{prefix} {spinner} {bytes} {binary_bytes_per_sec} {elapsed}",
                ),
            };
            let style = ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(label.to_string());
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Counts `n` more bytes done.
    pub fn inc(&mut self, n: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(n);
        if !self.shown && self.start.elapsed() >= SHOW_AFTER {
            self.shown = true;
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Ends the work and erases the bar.
    pub fn finish(self) {}

    /// Wraps a reader so every byte read counts as done.
    pub fn reader<R: Read>(self, inner: R) -> ProgressRead<R> {
        ProgressRead {
            inner,
            progress: self,
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A reader that reports its bytes to a [`Progress`]; the bar goes when it is dropped.
pub struct ProgressRead<R> {
    inner: R,
    progress: Progress,
}

impl<R: Read> Read for ProgressRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.inc(n as u64);
        Ok(n)
    }
}
