//! Output that appears whole or not at all: a file is written to a temporary file in the
//! same directory and renamed over the target only on success; on any error the temporary
//! is removed and an existing target is left untouched.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// Where output goes.
pub enum Output {
    Stdout(io::StdoutLock<'static>),
    File { tmp: NamedTempFile, target: PathBuf },
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
        Ok(Output::File {
            tmp,
            target: target.to_path_buf(),
        })
    }

    /// Writes a chunk.
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Output::Stdout(s) => s.write_all(data).context("cannot write to standard output"),
            Output::File { tmp, target } => tmp
                .write_all(data)
                .with_context(|| format!("cannot write '{}'", target.display())),
        }
    }

    /// Flushes and, for a file, renames it into place (keeping an existing target's
    /// permissions).
    pub fn commit(self) -> Result<()> {
        match self {
            Output::Stdout(mut s) => s.flush().context("cannot write to standard output"),
            Output::File { mut tmp, target } => {
                let what = || format!("cannot write '{}'", target.display());
                tmp.flush().with_context(what)?;
                tmp.as_file().sync_all().with_context(what)?;
                if let Ok(meta) = fs::metadata(&target) {
                    fs::set_permissions(tmp.path(), meta.permissions()).with_context(what)?;
                }
                tmp.persist(&target)
                    .map_err(|e| e.error)
                    .with_context(what)?;
                Ok(())
            }
        }
    }
}
