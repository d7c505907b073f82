//! Where `-i PATH` reads from: the file, or standard input for `-` or no `-i`.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::path::Path;

use anyhow::{anyhow, Result};

use crate::output::{is_std, reason};

/// An opened input.
pub struct Input {
    /// Unbuffered: callers read large pieces (a pipe's whole buffer per call).
    pub reader: Box<dyn Read + Send>,
    /// As error messages name it: `'path'` or `standard input`.
    pub name: String,
    /// The size, when the input is a regular file (for a progress bar).
    pub size: Option<u64>,
}

/// Opens `path` (standard input for `None` or `-`).
pub fn open(path: Option<&Path>) -> Result<Input> {
    let Some(p) = path.filter(|_| !is_std(path)) else {
        // Its own descriptor (a duplicate of 0), so a reader thread can own it.
        let fd = io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map_err(|e| anyhow!("cannot read standard input: {}", reason(&e)))?;
        return Ok(Input {
            reader: Box::new(File::from(fd)),
            name: "standard input".into(),
            size: None,
        });
    };
    let name = format!("'{}'", p.display());
    let file = File::open(p).map_err(|e| anyhow!("cannot read {name}: {}", reason(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| anyhow!("cannot read {name}: {}", reason(&e)))?;
    if meta.is_dir() {
        return Err(anyhow!("cannot read {name}: it is a directory"));
    }
    Ok(Input {
        reader: Box::new(file),
        name,
        size: meta.is_file().then_some(meta.len()),
    })
}
