//! `bitweave enc` / `bitweave dec`: raw encryption compatible with `openssl enc`.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{bail, Result};
use bitweave::{Cipher, Crypter, Direction, Suite};
use clap::Args;
use zeroize::Zeroizing;

use crate::input;
use crate::output::Output;
use crate::pipeline::{self, Piece};
use crate::progress::Progress;

#[derive(Args)]
pub struct CryptArgs {
    /// Cipher and mode, OpenSSL spelling (aes-128-cbc, des-ede3, seed-ofb, ...).
    #[arg(short = 'c', long = "cipher")]
    cipher: String,
    /// Key as hex (exactly the cipher's key length).
    #[arg(short = 'K', long = "key", value_name = "HEXKEY")]
    key: String,
    /// IV as hex: one block, or N blocks with --interleave N (not used by ECB).
    #[arg(long = "iv", value_name = "HEXIV")]
    iv: Option<String>,
    /// No PKCS#7 padding (ECB/CBC input must then be whole blocks).
    #[arg(long)]
    nopad: bool,
    /// Interleave N chains (cbc, cfb, ofb); 1 is the standard mode.
    #[arg(long, default_value_t = 1, value_name = "N")]
    interleave: usize,
    /// Input file (default, or `-`: standard input).
    #[arg(short = 'i', long = "in")]
    input: Option<PathBuf>,
    /// Output file (default, or `-`: standard output); a regular file is replaced only
    /// on success, a device or FIFO written directly.
    #[arg(short = 'o', long = "out")]
    output: Option<PathBuf>,
    /// Backend to use (see `bitweave list`); default: the best this CPU runs.
    #[arg(long)]
    backend: Option<String>,
    /// Threads for large inputs (0 = all cores); the output is the same for any value.
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
}

fn parse_hex(what: &str, s: &str) -> Result<Zeroizing<Vec<u8>>> {
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

pub fn run(args: CryptArgs, direction: Direction, quiet: bool) -> Result<()> {
    let suite: Suite = args.cipher.parse()?;
    let key = parse_hex("key (-K)", &args.key)?;
    let params = suite
        .params()
        .padding(suite.mode.whole_blocks() && !args.nopad)
        .interleave(args.interleave)
        .threads(args.threads);
    params.validate()?;
    let iv = match &args.iv {
        Some(s) if !suite.mode.takes_iv() => {
            parse_hex("IV (--iv)", s)?;
            eprintln!("warning: iv not used by this cipher");
            Zeroizing::new(Vec::new())
        }
        Some(s) => parse_hex("IV (--iv)", s)?,
        None => Zeroizing::new(Vec::new()),
    };
    let cipher = Cipher::with_backend(suite.cipher, &key, args.backend.as_deref())?;
    let crypter = params.crypter(&cipher, direction, &iv)?;

    let mut input = input::open(args.input.as_deref())?;
    let mut out = Output::open(args.output.as_deref())?;
    // Sized to the input file when there is one (a pipe shows bytes and rate only).
    let total = input.size;
    let label = match direction {
        Direction::Encrypt => "enc",
        Direction::Decrypt => "dec",
    };
    let progress = Progress::new(total, label, quiet);
    stream(crypter, &mut input.reader, &input.name, &mut out, progress)?;
    out.commit()
}

/// Runs `input` through `crypter` into `out`, reading, encrypting and writing at once
/// ([`pipeline`]). Every piece but the last is transformed in place; the last goes through
/// `update` and `finish` (padding). On an error (unreadable input, full disk, bad padding)
/// it returns before `out` is committed, so a file output never appears.
fn stream(
    crypter: Crypter,
    input: &mut (dyn Read + Send),
    in_name: &str,
    out: &mut Output,
    mut progress: Progress,
) -> Result<()> {
    // Whole units per piece, so in-place work always applies before the end.
    let unit = crypter.unit();
    let piece_len = (pipeline::PIECE / unit).max(1) * unit;
    let mut crypter = Some(crypter);
    let mut transform = |piece: &mut Piece, last: bool| -> Result<()> {
        progress.inc(piece.len as u64);
        let c = crypter.as_mut().expect("no piece after the last");
        if !last {
            return Ok(c.update_in_place_before_end(piece.data())?);
        }
        let mut result = Zeroizing::new(Vec::with_capacity(piece.len + 64));
        c.update(piece.data(), &mut result);
        crypter
            .take()
            .expect("one last piece")
            .finish(&mut result)?;
        // The piece's old buffer is wiped as it drops here.
        piece.replace(result);
        Ok(())
    };
    let mut write = |data: &[u8]| out.write(data);
    pipeline::run(input, in_name, piece_len, &mut transform, &mut write)?;
    progress.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::FailingReader;
    use bitweave::{CipherKind, Mode, ModeParams};

    #[test]
    fn input_failing_midway_leaves_no_output_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.bin");
        let cipher = Cipher::new(CipherKind::Aes128, &[7; 16]).unwrap();
        for mode in [Mode::Ctr, Mode::Cbc] {
            let crypter = ModeParams::new(mode)
                .crypter(&cipher, Direction::Encrypt, &[1; 16])
                .unwrap();
            let mut out = Output::open(Some(&target)).unwrap();
            // Three full chunks go out to the temporary before the read fails.
            let mut input = FailingReader {
                good: 3 * pipeline::PIECE + 100,
            };
            let err = stream(
                crypter,
                &mut input,
                "'in.bin'",
                &mut out,
                Progress::new(None, "enc", true),
            )
            .unwrap_err();
            assert_eq!(
                format!("{:#}", err),
                "cannot read 'in.bin': input/output error"
            );
            drop(out);
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert!(left.is_empty(), "{mode}: files left behind: {left:?}");
        }
    }
}
