//! `bitweave aead-enc` / `bitweave aead-dec`: π-Cipher v2 authenticated encryption in
//! SUPERCOP's format, `E(nsec) || C || T`.
//!
//! The whole input is read before anything is written: encryption needs the message length
//! only at the end, but decryption must check the tag before it may release a single byte.
//! So on any error, including a failed tag check, nothing reaches standard output and no
//! file is created or changed. The recovered secret message number is not printed (it is a
//! secret); `--nsec-out FILE` writes it to FILE as hex, atomically and only on success.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use bitweave::aead::{PiBackend, PiCipher, PiVariant};
use clap::Args;
use zeroize::Zeroizing;

use crate::output::Output;

#[derive(Args)]
pub struct AeadArgs {
    /// Variant: pi16cipher096v2, pi16cipher128v2, pi32cipher128v2, pi32cipher256v2,
    /// pi64cipher128v2, pi64cipher256v2.
    #[arg(short = 'c', long = "cipher")]
    cipher: String,
    /// Key as hex (exactly the variant's key length).
    #[arg(short = 'K', long = "key", value_name = "HEXKEY")]
    key: String,
    /// Public message number (nonce) as hex; never reuse one under the same key.
    #[arg(long = "npub", value_name = "HEX")]
    npub: String,
    /// Secret message number as hex, one rate block (16/32/64 bytes); aead-enc only.
    #[arg(long = "nsec", value_name = "HEX")]
    nsec: Option<String>,
    /// Associated data as hex (authenticated, not encrypted; default empty).
    #[arg(long = "ad", value_name = "HEX")]
    ad: Option<String>,
    /// aead-dec only: write the decrypted secret message number to FILE as hex.
    #[arg(long = "nsec-out", value_name = "FILE")]
    nsec_out: Option<PathBuf>,
    /// Input file (default: standard input).
    #[arg(short = 'i', long = "in")]
    input: Option<PathBuf>,
    /// Output file (default: standard output); written atomically.
    #[arg(short = 'o', long = "out")]
    output: Option<PathBuf>,
    /// Backend: ref, portable, avx2, avx512 (default: the best this CPU runs).
    #[arg(long)]
    backend: Option<String>,
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

fn read_input(path: Option<&std::path::Path>) -> Result<Zeroizing<Vec<u8>>> {
    let mut data = Zeroizing::new(Vec::new());
    match path {
        Some(p) => File::open(p)
            .and_then(|mut f| f.read_to_end(&mut data))
            .with_context(|| format!("cannot read '{}'", p.display()))?,
        None => io::stdin()
            .lock()
            .read_to_end(&mut data)
            .context("cannot read standard input")?,
    };
    Ok(data)
}

/// Runs aead-enc (`encrypt`) or aead-dec.
pub fn run(args: AeadArgs, encrypt: bool) -> Result<()> {
    let variant: PiVariant = args.cipher.parse()?;
    let key = parse_hex("key (-K)", &args.key)?;
    let npub = parse_hex("npub (--npub)", &args.npub)?;
    let ad = match &args.ad {
        Some(s) => parse_hex("AD (--ad)", s)?,
        None => Zeroizing::new(Vec::new()),
    };
    let nsec = match (&args.nsec, encrypt) {
        (Some(s), true) => parse_hex("nsec (--nsec)", s)?,
        (None, true) => bail!(
            "{variant} needs a secret message number: --nsec with {} bytes as hex",
            variant.nsec_len()
        ),
        (Some(_), false) => bail!(
            "--nsec applies to aead-enc only: aead-dec recovers it from the ciphertext (see --nsec-out)"
        ),
        (None, false) => Zeroizing::new(Vec::new()),
    };
    if encrypt && args.nsec_out.is_some() {
        bail!("--nsec-out applies to aead-dec only");
    }
    let pi = PiCipher::with_backend(variant, &key, args.backend.as_deref())?;
    let input = read_input(args.input.as_deref())?;

    // Compute everything first: an error leaves no trace in the output.
    let (result, nsec_hex) = if encrypt {
        let c = pi.encrypt(&npub, &nsec, &ad, &input)?;
        (Zeroizing::new(c), None)
    } else {
        let opened = pi.decrypt(&npub, &ad, &input)?;
        let hex_nsec = Zeroizing::new(format!("{}\n", hex::encode(&opened.nsec[..])));
        (opened.plaintext, Some(hex_nsec))
    };

    if let (Some(path), Some(text)) = (&args.nsec_out, &nsec_hex) {
        let mut out = Output::open(Some(path))?;
        out.write(text.as_bytes())?;
        out.commit()?;
    }
    let mut out = Output::open(args.output.as_deref())?;
    out.write(&result)?;
    out.commit()
}

/// The `bitweave list` lines for the AEAD variants and backends.
pub fn print_list() {
    println!("AEAD (aead-enc/aead-dec -c NAME; output E(nsec) || C || T):");
    for v in PiVariant::ALL {
        println!(
            "  {:<16} key {:>2} bytes, npub {:>2}, nsec {:>2}, tag {:>2}",
            v.name(),
            v.key_len(),
            v.npub_len(),
            v.nsec_len(),
            v.tag_len()
        );
    }
    let backends: Vec<String> = PiBackend::ALL
        .iter()
        .map(|b| {
            let avail = if b.available() {
                ""
            } else {
                " (not on this CPU)"
            };
            format!("{}{avail}", b.name())
        })
        .collect();
    println!(
        "AEAD backends: {} (default {})",
        backends.join(", "),
        PiBackend::best().name()
    );
}
