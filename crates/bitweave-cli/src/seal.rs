//! `bitweave seal` / `bitweave open`: the library's sealed file format
//! (docs/SEALED-FORMAT.md) on files or pipes.
//!
//! The secret never comes from the command line (argv is visible to other users): a key
//! file (`--key-file`: 32 raw bytes or 64 hex digits), a passphrase file
//! (`--passphrase-file`: its first line), the `BITWEAVE_PASSPHRASE` environment variable, or
//! a prompt on the terminal, in that order. A regular file named by `-o` appears only when
//! every chunk authenticated; with standard output, a device or a FIFO, a failure after the
//! first window of chunks leaves the authentic bytes already written (one `error:` line
//! still says so).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use bitweave::seal::{self, Argon2Params, OpenOptions, SealError, SealOptions, SealSuite, Secret};
use clap::Args;
use zeroize::Zeroizing;

use crate::args::IoArgs;
use crate::input;
use crate::output::{is_std, reason, Output};
use crate::password::{first_line, prompt, read_secret_file};
use crate::progress::Progress;

/// The environment variable read for a passphrase when no file is given.
const PASSPHRASE_ENV: &str = "BITWEAVE_PASSPHRASE";

/// Where the secret comes from (shared by seal and open).
#[derive(Args)]
pub struct SecretArgs {
    /// Key file: exactly 32 bytes, or 64 hex digits (whitespace around them ignored).
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase_file")]
    key_file: Option<PathBuf>,
    /// Passphrase file: its first line is the passphrase (else $BITWEAVE_PASSPHRASE, else a
    /// prompt on the terminal).
    #[arg(long, value_name = "FILE")]
    passphrase_file: Option<PathBuf>,
}

#[derive(Args)]
pub struct SealArgs {
    /// Cipher suite: aes-256-gcm, aes-256-ctr-hmac-sha256, pi64cipher256v2, pi32cipher256v2
    /// [default: the fastest on this CPU: aes-256-gcm where it has a carry-less multiply
    /// (x86-64 PCLMULQDQ), else aes-256-ctr-hmac-sha256]
    #[arg(long)]
    suite: Option<String>,
    /// Plaintext bytes per chunk: a power of two from 1K to 16M (suffix K or M allowed).
    #[arg(long, default_value = "1M", value_name = "BYTES")]
    chunk_size: String,
    /// Argon2id memory in KiB (passphrase only).
    #[arg(long, default_value_t = Argon2Params::default().m_kib, value_name = "KIB")]
    kdf_memory: u32,
    /// Argon2id passes (passphrase only).
    #[arg(long, default_value_t = Argon2Params::default().t, value_name = "N")]
    kdf_passes: u32,
    /// Argon2id lanes (passphrase only).
    #[arg(long, default_value_t = Argon2Params::default().p, value_name = "N")]
    kdf_lanes: u32,
    #[command(flatten)]
    secret: SecretArgs,
    /// Worker threads (0 = all cores); the output does not depend on it.
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    #[command(flatten)]
    io: IoArgs,
}

#[derive(Args)]
pub struct OpenArgs {
    #[command(flatten)]
    secret: SecretArgs,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    #[command(flatten)]
    io: IoArgs,
}

/// `1024`, `64K`, `1M` → log2, for powers of two in the format's range.
fn parse_chunk_size(s: &str) -> Result<u8> {
    let (digits, scale) = match s.strip_suffix(['K', 'k']) {
        Some(d) => (d, 1u64 << 10),
        None => match s.strip_suffix(['M', 'm']) {
            Some(d) => (d, 1 << 20),
            None => (s, 1),
        },
    };
    let n = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| anyhow!("chunk size '{s}' is not a number of bytes"))?;
    let (lo, hi) = (1u64 << seal::MIN_CHUNK_LOG2, 1u64 << seal::MAX_CHUNK_LOG2);
    if !n.is_power_of_two() || !(lo..=hi).contains(&n) {
        bail!("chunk size must be a power of two from 1K to 16M, not {s}");
    }
    Ok(n.trailing_zeros() as u8)
}

/// A key file: 32 raw bytes, or 64 hex digits with optional surrounding whitespace.
fn key_from_file(path: &Path) -> Result<Secret> {
    let data = read_secret_file(path, "key file")?;
    if let Ok(raw) = <[u8; 32]>::try_from(&data[..]) {
        return Ok(Secret::key(raw));
    }
    let text = data.trim_ascii();
    let mut key = Zeroizing::new([0u8; 32]);
    if text.len() == 64 && hex::decode_to_slice(text, &mut key[..]).is_ok() {
        return Ok(Secret::Key(key));
    }
    bail!(
        "key file '{}' must hold 32 raw bytes or 64 hex digits (it has {} bytes)",
        path.display(),
        data.len()
    )
}

fn passphrase(args: &SecretArgs, confirm: bool) -> Result<Secret> {
    let pw: Zeroizing<Vec<u8>> = if let Some(path) = &args.passphrase_file {
        let data = read_secret_file(path, "passphrase file")?;
        Zeroizing::new(first_line(&data).to_vec())
    } else if let Some(v) = std::env::var_os(PASSPHRASE_ENV) {
        Zeroizing::new(v.into_encoded_bytes())
    } else {
        prompt(
            "passphrase",
            confirm,
            &format!("use --passphrase-file, set {PASSPHRASE_ENV}, or use --key-file"),
        )?
    };
    if pw.is_empty() {
        bail!("the passphrase is empty");
    }
    Ok(Secret::Passphrase(pw))
}

fn secret(args: &SecretArgs, confirm: bool) -> Result<Secret> {
    match &args.key_file {
        Some(path) => key_from_file(path),
        None => passphrase(args, confirm),
    }
}

/// The input (counted by a progress bar sized to the file, when there is one).
fn input(path: Option<&Path>, label: &str, quiet: bool) -> Result<Box<dyn Read>> {
    let input = input::open(path)?;
    Ok(Box::new(
        Progress::new(input.size, label, quiet).reader(input.reader),
    ))
}

/// Names the file in read/write failures; everything else keeps the library's message.
fn describe(e: SealError, input: Option<&Path>, output: &Output) -> anyhow::Error {
    let input = match input.filter(|_| !is_std(input)) {
        Some(p) => format!("'{}'", p.display()),
        None => "standard input".into(),
    };
    match e {
        SealError::Read(io) => anyhow!("cannot read {input}: {}", reason(&io)),
        SealError::Write(io) => anyhow!("cannot write {}: {}", output.name(), reason(&io)),
        other => anyhow!(other),
    }
}

pub fn run_seal(args: SealArgs, quiet: bool) -> Result<()> {
    let suite = match &args.suite {
        Some(name) => name.parse()?,
        None => SealSuite::preferred(),
    };
    let opts = SealOptions {
        suite,
        chunk_log2: parse_chunk_size(&args.chunk_size)?,
        argon2: Argon2Params {
            m_kib: args.kdf_memory,
            t: args.kdf_passes,
            p: args.kdf_lanes,
        },
        threads: args.threads,
    };
    opts.argon2.validate()?;
    let secret = secret(&args.secret, true)?;
    let reader = input(args.io.input.as_deref(), "seal", quiet)?;
    let mut out = Output::open(args.io.output.as_deref())?;
    if let Err(e) = seal::seal(reader, out.as_writer(), &secret, &opts) {
        return Err(describe(e, args.io.input.as_deref(), &out));
    }
    out.commit()
}

pub fn run_open(args: OpenArgs, quiet: bool) -> Result<()> {
    let secret = secret(&args.secret, false)?;
    let reader = input(args.io.input.as_deref(), "open", quiet)?;
    let mut out = Output::open(args.io.output.as_deref())?;
    let opts = OpenOptions {
        threads: args.threads,
    };
    if let Err(e) = seal::open(reader, out.as_writer(), &secret, &opts) {
        return Err(describe(e, args.io.input.as_deref(), &out));
    }
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::FailingReader;

    #[test]
    fn chunk_sizes() {
        assert_eq!(parse_chunk_size("1M").unwrap(), 20);
        assert_eq!(parse_chunk_size("64k").unwrap(), 16);
        assert_eq!(parse_chunk_size("1024").unwrap(), 10);
        for bad in ["512", "3K", "32M", "x", "", "99999999999999999999M"] {
            assert!(parse_chunk_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passphrase_file_takes_the_first_line() {
        assert_eq!(first_line(b"pw\nrest"), b"pw");
        assert_eq!(first_line(b"pw\r\n"), b"pw");
        assert_eq!(first_line(b"pw"), b"pw");
        assert_eq!(first_line(b"\nx"), b"");
    }

    #[test]
    fn input_failing_midway_leaves_no_sealed_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.sealed");
        let mut out = Output::open(Some(&target)).unwrap();
        let opts = SealOptions {
            suite: SealSuite::Aes256CtrHmacSha256,
            chunk_log2: 16,
            argon2: Argon2Params::default(),
            threads: 1,
        };
        // Many chunks are sealed and written before the read fails.
        let reader = FailingReader { good: 5 << 20 };
        let err = seal::seal(reader, out.as_writer(), &Secret::key([9; 32]), &opts).unwrap_err();
        let err = describe(err, Some(Path::new("in.bin")), &out);
        assert_eq!(err.to_string(), "cannot read 'in.bin': input/output error");
        drop(out);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "files left behind: {left:?}");
    }
}
