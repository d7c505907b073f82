//! Arguments several subcommands share: `-i`/`-o`, and hex-valued options.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use zeroize::Zeroizing;

/// `-i` and `-o`, as every subcommand that reads and writes data takes them.
#[derive(Args)]
pub struct IoArgs {
    /// Input file (default, or `-`: standard input).
    #[arg(short = 'i', long = "in")]
    pub input: Option<PathBuf>,
    /// Output file (default, or `-`: standard output). A regular file is replaced only
    /// when the command succeeds (decryption: only if everything checks out); a device or
    /// FIFO is written directly.
    #[arg(short = 'o', long = "out")]
    pub output: Option<PathBuf>,
}

/// A hex-valued option (`what` names it in the error), wiped when dropped.
pub fn parse_hex(what: &str, s: &str) -> Result<Zeroizing<Vec<u8>>> {
    match hex::decode(s) {
        Ok(v) => Ok(Zeroizing::new(v)),
        Err(hex::FromHexError::OddLength) => bail!("{what} is not valid hex: odd number of digits"),
        Err(hex::FromHexError::InvalidHexCharacter { index, .. }) => {
            bail!(
                "{what} is not valid hex: bad digit at position {}",
                index + 1
            )
        }
        Err(e) => bail!("{what} is not valid hex: {e}"),
    }
}
