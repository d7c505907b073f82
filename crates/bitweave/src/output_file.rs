//! Writing to a path the user named without damaging what is there, decided once from
//! what is at the path. The CLI's `-o` and the Python package's file functions share it.
//!
//! - a regular file, or nothing yet: all or nothing. The output is written to a temporary
//!   file in the same directory and renamed over the target only on success; on any error
//!   the temporary is removed and an existing target is left untouched. When an existing
//!   file is replaced, the temporary is flushed to disk (`fsync`) before the rename, so a
//!   crash leaves the old file or the new one, never a renamed but unwritten one; a new
//!   file is not synced, as `cp` and `openssl enc` do not (the input it came from is still
//!   there). The sync costs what writing the file back costs: 1.6 s for 1 GiB on the
//!   machine the README's figures come from.
//! - a symbolic link: followed (through every link in a chain), and the file it ends at is
//!   replaced as above; the link stays a link. A link to nothing creates its target.
//! - a character or block device, or a FIFO: opened and written directly, as a shell's `>`
//!   would (a device or a pipe cannot be renamed over, and replacing the node would break
//!   it). All or nothing does not apply: bytes written before an error stay written.
//! - a directory or a socket: refused.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Why a path cannot be written; the message completes "cannot write 'PATH': ".
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("it is a directory")]
    Directory,
    #[error("it is a socket")]
    Socket,
    #[error("too many levels of symbolic links")]
    LinkLoop,
    #[error("directory '{}' does not exist", .0.display())]
    NoDirectory(PathBuf),
    #[error("cannot create a file in '{}': {}", .dir.display(), io_reason(.source))]
    CreateIn { dir: PathBuf, source: io::Error },
    #[error("{}", io_reason(.0))]
    Io(#[from] io::Error),
}

impl OutputError {
    /// The kind of I/O error this is, for callers that map kinds to their own types.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            OutputError::Io(e) | OutputError::CreateIn { source: e, .. } => e.kind(),
            OutputError::NoDirectory(_) => io::ErrorKind::NotFound,
            OutputError::Directory => io::ErrorKind::IsADirectory,
            OutputError::Socket | OutputError::LinkLoop => io::ErrorKind::Other,
        }
    }
}

/// An I/O error as a sentence, without the "(os error N)" tail or a library's internal
/// path (a temporary file's name means nothing to the user).
pub fn io_reason(e: &io::Error) -> String {
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

/// Links followed before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Follows `path` through symbolic links to what it finally names (which may not exist).
fn follow_links(path: &Path) -> Result<PathBuf, OutputError> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(OutputError::LinkLoop)
}

/// An output being written: see the module doc for which kind a path gets.
pub enum OutputFile {
    /// A device or FIFO, written as the bytes come.
    Direct(File),
    /// A temporary beside `target` (links followed), renamed over it by
    /// [`persist`](Self::persist).
    Replace {
        tmp: NamedTempFile,
        target: PathBuf,
        /// A file is at `target` already: sync before renaming over it.
        replacing: bool,
    },
}

impl OutputFile {
    /// Opens `path` for writing as the module doc says.
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        // `metadata` follows links the way open does, /proc's magic links (/dev/stdout)
        // included.
        let target = match fs::metadata(path) {
            Ok(m) if m.is_file() => fs::canonicalize(path)?,
            Ok(m) if m.is_dir() => return Err(OutputError::Directory),
            Ok(m) if m.file_type().is_socket() => return Err(OutputError::Socket),
            Ok(_) => {
                let file = OpenOptions::new().write(true).open(path)?;
                return Ok(OutputFile::Direct(file));
            }
            // Nothing there yet, or a link to nothing: the file is created where the
            // links lead.
            Err(e) if e.kind() == io::ErrorKind::NotFound => follow_links(path)?,
            Err(e) => return Err(e.into()),
        };
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(OutputError::NoDirectory(dir.to_path_buf()));
        }
        let tmp = tempfile::Builder::new()
            .prefix(".bitweave-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|source| OutputError::CreateIn {
                dir: dir.to_path_buf(),
                source,
            })?;
        let replacing = target.exists();
        Ok(OutputFile::Replace {
            tmp,
            target,
            replacing,
        })
    }

    /// The temporary file being written, for a replaced file (a caller that may be
    /// interrupted by a signal lists it, to remove it before exiting).
    pub fn temp_path(&self) -> Option<&Path> {
        match self {
            OutputFile::Direct(_) => None,
            OutputFile::Replace { tmp, .. } => Some(tmp.path()),
        }
    }

    /// Whether nothing reaches the destination before [`persist`](Self::persist): true
    /// for a replaced file, false for devices and FIFOs.
    pub fn is_all_or_nothing(&self) -> bool {
        matches!(self, OutputFile::Replace { .. })
    }

    /// The file to write to.
    pub fn file(&mut self) -> &mut File {
        match self {
            OutputFile::Direct(f) => f,
            OutputFile::Replace { tmp, .. } => tmp.as_file_mut(),
        }
    }

    /// Everything before the rename: flushes, syncs when replacing an existing file, and
    /// gives the temporary the target's permissions.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            OutputFile::Direct(f) => f.flush(),
            OutputFile::Replace {
                tmp,
                target,
                replacing,
            } => {
                tmp.flush()?;
                if *replacing {
                    tmp.as_file().sync_all()?;
                }
                if let Ok(meta) = fs::metadata(&*target) {
                    fs::set_permissions(tmp.path(), meta.permissions())?;
                }
                Ok(())
            }
        }
    }

    /// Renames a replaced file into place (nothing to do for a device or FIFO). Call
    /// [`finish`](Self::finish) first.
    pub fn persist(self) -> io::Result<()> {
        match self {
            OutputFile::Direct(_) => Ok(()),
            OutputFile::Replace { tmp, target, .. } => {
                tmp.persist(&target).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}
