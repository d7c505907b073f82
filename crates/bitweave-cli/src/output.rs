//! Output that appears whole or not at all: a file is written to a temporary file in the
//! same directory and renamed over the target only on success; on any error the temporary
//! is removed and an existing target is left untouched. Temporaries in flight are listed,
//! so that the signal handler ([`crate::signals`]) can remove them too before exiting.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// Temporary files written but not yet renamed into place.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every temporary output in flight and returns the lock, so that no output can be
/// committed after this call: the caller is about to exit. Returns how many were removed.
pub fn discard_pending() -> (usize, MutexGuard<'static, Vec<PathBuf>>) {
    let mut list = pending();
    let n = list.len();
    for path in list.drain(..) {
        let _ = fs::remove_file(&path);
    }
    (n, list)
}

/// Takes a temporary off the pending list when it is renamed or dropped.
pub struct Listed(PathBuf);

impl Listed {
    fn new(path: &Path) -> Self {
        pending().push(path.to_path_buf());
        Listed(path.to_path_buf())
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        pending().retain(|p| *p != self.0);
    }
}

/// Where output goes.
pub enum Output {
    Stdout(io::StdoutLock<'static>),
    File {
        tmp: NamedTempFile,
        target: PathBuf,
        listed: Listed,
    },
}

impl Output {
    /// Standard output when `path` is `None`, else a temporary beside `path`.
    pub fn open(path: Option<&Path>) -> Result<Self> {
        let Some(target) = path else {
            return Ok(Output::Stdout(io::stdout().lock()));
        };
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".bitweave-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .with_context(|| format!("cannot create output in '{}'", dir.display()))?;
        let listed = Listed::new(tmp.path());
        Ok(Output::File {
            tmp,
            target: target.to_path_buf(),
            listed,
        })
    }

    /// Writes a chunk.
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Output::Stdout(s) => s.write_all(data).context("cannot write to standard output"),
            Output::File { tmp, target, .. } => tmp
                .write_all(data)
                .with_context(|| format!("cannot write '{}'", target.display())),
        }
    }

    /// The underlying writer, for code that streams through `io::Write` (errors then carry
    /// no file name: the caller names it).
    pub fn as_writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(s) => s,
            Output::File { tmp, .. } => tmp,
        }
    }

    /// Flushes and, for a file, renames it into place (keeping an existing target's
    /// permissions).
    pub fn commit(self) -> Result<()> {
        match self {
            Output::Stdout(mut s) => s.flush().context("cannot write to standard output"),
            Output::File {
                mut tmp,
                target,
                listed,
            } => {
                let what = || format!("cannot write '{}'", target.display());
                tmp.flush().with_context(what)?;
                tmp.as_file().sync_all().with_context(what)?;
                if let Ok(meta) = fs::metadata(&target) {
                    fs::set_permissions(tmp.path(), meta.permissions()).with_context(what)?;
                }
                // Under the lock: a signal either removes the temporary before the rename
                // or finds it renamed, never a half-renamed state.
                let mut list = pending();
                tmp.persist(&target)
                    .map_err(|e| e.error)
                    .with_context(what)?;
                list.retain(|p| *p != listed.0);
                drop(list);
                Ok(())
            }
        }
    }
}
