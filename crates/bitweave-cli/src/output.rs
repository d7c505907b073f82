//! Where `-o PATH` writes: standard output for `-` or no `-o`; otherwise a
//! [`bitweave::output_file::OutputFile`], whose module doc has the rules (a regular file
//! is replaced all or nothing through a temporary beside it, a symbolic link is followed,
//! a device or FIFO is written directly, a directory or socket is refused). Temporaries in
//! flight are listed here, so that the signal handler ([`crate::signals`]) can remove them
//! too before exiting.

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use anyhow::{anyhow, Result};
pub use bitweave::output_file::io_reason as reason;
use bitweave::output_file::OutputFile;

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

/// `-` in a path argument: standard input or output.
pub fn is_std(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

/// Where output goes.
pub enum Output {
    /// Standard output through its own descriptor (a duplicate of 1): unbuffered, so a
    /// large write is one system call, and ownable by a writer thread.
    Stdout(File),
    /// A path; `name` is the path the user gave.
    Path {
        file: OutputFile,
        name: PathBuf,
        listed: Option<Listed>,
    },
}

impl Output {
    /// Standard output when `path` is `None` or `-`; else an [`OutputFile`].
    pub fn open(path: Option<&Path>) -> Result<Self> {
        match path.filter(|_| !is_std(path)) {
            None => {
                let fd = io::stdout()
                    .as_fd()
                    .try_clone_to_owned()
                    .map_err(|e| anyhow!("cannot write to standard output: {}", reason(&e)))?;
                Ok(Output::Stdout(File::from(fd)))
            }
            Some(name) => {
                let file = OutputFile::create(name)
                    .map_err(|e| anyhow!("cannot write '{}': {e}", name.display()))?;
                let listed = file.temp_path().map(Listed::new);
                Ok(Output::Path {
                    file,
                    name: name.to_path_buf(),
                    listed,
                })
            }
        }
    }

    /// Whether nothing reaches the destination before [`Output::commit`]: true for a
    /// replaced file, false for standard output, devices and FIFOs.
    pub fn is_all_or_nothing(&self) -> bool {
        matches!(self, Output::Path { file, .. } if file.is_all_or_nothing())
    }

    /// Writes a chunk.
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        let name = self.name();
        self.as_writer()
            .write_all(data)
            .map_err(|e| anyhow!("cannot write {name}: {}", reason(&e)))
    }

    /// The destination as error messages name it.
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "to standard output".into(),
            Output::Path { name, .. } => format!("'{}'", name.display()),
        }
    }

    /// The underlying writer, for code that streams through `io::Write` (errors then carry
    /// no file name: the caller names it with [`Output::name`]).
    pub fn as_writer(&mut self) -> &mut (dyn Write + Send) {
        match self {
            Output::Stdout(s) => s,
            Output::Path { file, .. } => file.file(),
        }
    }

    /// Flushes and, for a replaced file, renames it into place (keeping an existing
    /// target's permissions).
    pub fn commit(self) -> Result<()> {
        let name = self.name();
        let what = |e: io::Error| anyhow!("cannot write {name}: {}", reason(&e));
        match self {
            Output::Stdout(mut s) => s.flush().map_err(what),
            Output::Path {
                mut file, listed, ..
            } => {
                file.finish().map_err(what)?;
                // Under the lock: a signal either removes the temporary before the rename
                // or finds it renamed, never a half-renamed state.
                let mut list = pending();
                file.persist().map_err(what)?;
                if let Some(listed) = &listed {
                    list.retain(|p| *p != listed.0);
                }
                drop(list);
                Ok(())
            }
        }
    }
}
