//! Where `-i PATH` reads from: the file, or standard input for `-` or no `-i`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use anyhow::{anyhow, Result};

use crate::output::{is_std, reason};

/// An opened input.
pub struct Input {
    pub reader: Box<dyn Read>,
    /// As error messages name it: `'path'` or `standard input`.
    pub name: String,
    /// The size, when the input is a regular file (for a progress bar).
    pub size: Option<u64>,
}

/// Opens `path` (standard input for `None` or `-`).
pub fn open(path: Option<&Path>) -> Result<Input> {
    let Some(p) = path.filter(|_| !is_std(path)) else {
        return Ok(Input {
            reader: Box::new(io::stdin().lock()),
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
