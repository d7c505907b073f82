//! Where `-o PATH` writes, decided once from what is at the path:
//!
//! - a regular file, or nothing yet: all or nothing. The output is written to a temporary
//!   file in the same directory and renamed over the target only on success; on any error
//!   the temporary is removed and an existing target is left untouched. Temporaries in
//!   flight are listed, so that the signal handler ([`crate::signals`]) can remove them
//!   too before exiting. When an existing file is replaced, the temporary is flushed to
//!   disk (`fsync`) before the rename, so a crash leaves the old file or the new one,
//!   never a renamed but unwritten one; a new file is not synced, as `cp` and `openssl
//!   enc` do not (the input it came from is still there). The sync costs what writing the
//!   file back costs: 1.6 s for 1 GiB on the machine the README's figures come from.
//! - a symbolic link: followed (through every link in a chain), and the file it ends at is
//!   replaced as above; the link stays a link. A link to nothing creates its target.
//! - a character or block device, or a FIFO: opened and written directly, as a shell's `>`
//!   would (a device or a pipe cannot be renamed over, and replacing the node would break
//!   it). All or nothing does not apply: bytes written before an error stay written, as
//!   with standard output.
//! - a directory or a socket: refused.
//! - `-`, or no `-o`: standard output.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use anyhow::{anyhow, bail, Result};
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

/// `-` in a path argument: standard input or output.
pub fn is_std(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

/// An I/O error as a sentence, without the "(os error N)" tail or a library's internal
/// path (a temporary file's name means nothing to the user).
pub fn reason(e: &io::Error) -> String {
    let text = match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code).to_string(),
        None => match e.kind() {
            io::ErrorKind::NotFound => "no such file or directory".into(),
            io::ErrorKind::PermissionDenied => "permission denied".into(),
            io::ErrorKind::ReadOnlyFilesystem => "read-only file system".into(),
            io::ErrorKind::StorageFull => "no space left on device".into(),
            _ => e.to_string(),
        },
    };
    let text = match text.find(" (os error") {
        Some(i) => &text[..i],
        None => &text,
    };
    // strerror's capital first letter reads oddly after a colon.
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |c| {
        c.to_lowercase().chain(chars).collect::<String>()
    })
}

/// What `-o PATH` leads to.
enum Destination {
    Stdout,
    /// A device or FIFO (reached through this path): written directly.
    Direct(PathBuf),
    /// A regular file at this path (links resolved), or nothing yet: replaced whole.
    Replace(PathBuf),
}

/// Links followed before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Follows `path` through symbolic links to what it finally names (which may not exist).
fn follow_links(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)
                    .map_err(|e| anyhow!("cannot write '{}': {}", path.display(), reason(&e)))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    bail!(
        "cannot write '{}': too many levels of symbolic links",
        path.display()
    )
}

fn destination(path: Option<&Path>) -> Result<Destination> {
    let Some(path) = path.filter(|_| !is_std(path)) else {
        return Ok(Destination::Stdout);
    };
    let fail = |e: io::Error| anyhow!("cannot write '{}': {}", path.display(), reason(&e));
    // `metadata` follows links the way open does, /proc's magic links (/dev/stdout)
    // included.
    let kind = match fs::metadata(path) {
        Ok(m) => m.file_type(),
        // Nothing there yet, or a link to nothing: the file is created where the links
        // lead.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Destination::Replace(follow_links(path)?))
        }
        Err(e) => return Err(fail(e)),
    };
    if kind.is_file() {
        Ok(Destination::Replace(fs::canonicalize(path).map_err(fail)?))
    } else if kind.is_dir() {
        bail!("cannot write '{}': it is a directory", path.display())
    } else if kind.is_socket() {
        bail!("cannot write '{}': it is a socket", path.display())
    } else {
        Ok(Destination::Direct(path.to_path_buf()))
    }
}

/// Where output goes.
pub enum Output {
    /// Standard output through its own descriptor (a duplicate of 1): unbuffered, so a
    /// large write is one system call, and ownable by a writer thread.
    Stdout(File),
    /// A device or FIFO, written as the bytes come; `name` is the path the user gave.
    Direct { file: File, name: PathBuf },
    /// A temporary beside `target` (links followed), renamed over it on commit; `name`
    /// is the path the user gave.
    File {
        tmp: NamedTempFile,
        target: PathBuf,
        name: PathBuf,
        listed: Listed,
        /// A file is at `target` already: sync before renaming over it.
        replacing: bool,
    },
}

impl Output {
    /// Standard output when `path` is `None` or `-`; else what the module doc says.
    pub fn open(path: Option<&Path>) -> Result<Self> {
        match (destination(path)?, path) {
            (Destination::Stdout, _) | (_, None) => {
                let fd = io::stdout()
                    .as_fd()
                    .try_clone_to_owned()
                    .map_err(|e| anyhow!("cannot write to standard output: {}", reason(&e)))?;
                Ok(Output::Stdout(File::from(fd)))
            }
            (Destination::Direct(real), Some(name)) => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&real)
                    .map_err(|e| anyhow!("cannot write '{}': {}", name.display(), reason(&e)))?;
                Ok(Output::Direct {
                    file,
                    name: name.to_path_buf(),
                })
            }
            (Destination::Replace(target), Some(name)) => {
                let dir = match target.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                if !dir.is_dir() {
                    bail!(
                        "cannot write '{}': directory '{}' does not exist",
                        name.display(),
                        dir.display()
                    );
                }
                let tmp = tempfile::Builder::new()
                    .prefix(".bitweave-")
                    .suffix(".tmp")
                    .tempfile_in(dir)
                    .map_err(|e| {
                        anyhow!(
                            "cannot write '{}': cannot create a file in '{}': {}",
                            name.display(),
                            dir.display(),
                            reason(&e)
                        )
                    })?;
                let listed = Listed::new(tmp.path());
                let replacing = target.exists();
                Ok(Output::File {
                    tmp,
                    target,
                    name: name.to_path_buf(),
                    listed,
                    replacing,
                })
            }
        }
    }

    /// Whether nothing reaches the destination before [`Output::commit`]: true for a
    /// replaced file, false for standard output, devices and FIFOs.
    pub fn is_all_or_nothing(&self) -> bool {
        matches!(self, Output::File { .. })
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
            Output::Direct { name, .. } | Output::File { name, .. } => {
                format!("'{}'", name.display())
            }
        }
    }

    /// The underlying writer, for code that streams through `io::Write` (errors then carry
    /// no file name: the caller names it with [`Output::name`]).
    pub fn as_writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(s) => s,
            Output::Direct { file, .. } => file,
            Output::File { tmp, .. } => tmp,
        }
    }

    /// Flushes and, for a replaced file, renames it into place (keeping an existing
    /// target's permissions).
    pub fn commit(self) -> Result<()> {
        let name = self.name();
        let what = |e: io::Error| anyhow!("cannot write {name}: {}", reason(&e));
        match self {
            Output::Stdout(mut s) => s.flush().map_err(what),
            Output::Direct { mut file, .. } => file.flush().map_err(what),
            Output::File {
                mut tmp,
                target,
                listed,
                replacing,
                ..
            } => {
                tmp.flush().map_err(what)?;
                if replacing {
                    tmp.as_file().sync_all().map_err(what)?;
                }
                if let Ok(meta) = fs::metadata(&target) {
                    fs::set_permissions(tmp.path(), meta.permissions()).map_err(what)?;
                }
                // Under the lock: a signal either removes the temporary before the rename
                // or finds it renamed, never a half-renamed state.
                let mut list = pending();
                tmp.persist(&target).map_err(|e| what(e.error))?;
                list.retain(|p| *p != listed.0);
                drop(list);
                Ok(())
            }
        }
    }
}
