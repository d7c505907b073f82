//! `bitweave aead-enc` / `bitweave aead-dec`: π-Cipher v2 authenticated encryption in
//! SUPERCOP's format, `E(nsec) || C || T`.
//!
//! Both commands stream: the input is read in 1 MiB pieces through the library's
//! incremental API, so memory stays flat whatever the size. Decryption must check the tag
//! before it may release a single byte, so its plaintext goes to the temporary output file
//! (or, for standard output, a device or a FIFO, to an anonymous temporary file copied out
//! afterwards) and is renamed into place or copied only once the tag verifies. On any
//! error, including a failed tag check, nothing reaches the output and no file is created
//! or changed.
//! The recovered secret message number is not printed (it is a secret); `--nsec-out FILE`
//! writes it to FILE as hex, atomically and only on success.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use bitweave::aead::{PiBackend, PiCipher, PiVariant};
use bitweave::SecretVec;
use clap::Args;
use zeroize::Zeroizing;

use crate::args::{parse_hex, IoArgs};
use crate::input;
use crate::output::{reason, Output};

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
    #[command(flatten)]
    io: IoArgs,
    /// Backend: ref, portable, avx2, avx512 (default: the best this CPU runs).
    #[arg(long)]
    backend: Option<String>,
}

/// Bytes read per step.
const CHUNK: usize = 1 << 20;

/// Calls `each` on every piece of the input, in order.
fn for_each_chunk(
    input: &mut dyn Read,
    name: &str,
    mut each: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut buf = SecretVec::zeroed(CHUNK);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => bail!("cannot read {name}: {}", reason(&e)),
        };
        each(&buf[..n])?;
    }
}

/// Where unverified plaintext waits for the tag: the output's own temporary file, or an
/// anonymous one when the output is written as it comes (standard output, a device, a
/// FIFO), copied there once the tag verified.
enum Held {
    File(Output),
    Later(File, Output),
}

impl Held {
    fn open(path: Option<&Path>) -> Result<Self> {
        let out = Output::open(path)?;
        Ok(if out.is_all_or_nothing() {
            Held::File(out)
        } else {
            let file = tempfile::tempfile().map_err(|e| {
                anyhow!(
                    "cannot create a temporary file for the output: {}",
                    reason(&e)
                )
            })?;
            Held::Later(file, out)
        })
    }

    fn write(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Held::File(o) => o.write(data),
            Held::Later(f, _) => f
                .write_all(data)
                .map_err(|e| anyhow!("cannot write the temporary output: {}", reason(&e))),
        }
    }

    /// Releases the plaintext (after the tag verified).
    fn release(self) -> Result<()> {
        match self {
            Held::File(o) => o.commit(),
            Held::Later(mut f, mut out) => {
                f.rewind()
                    .map_err(|e| anyhow!("cannot read the temporary output: {}", reason(&e)))?;
                let mut input: &mut dyn Read = &mut f;
                for_each_chunk(&mut input, "the temporary output", |c| out.write(c))?;
                out.commit()
            }
        }
    }
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
    let input::Input {
        reader: mut input,
        name: in_name,
        ..
    } = input::open(args.io.input.as_deref())?;
    let mut piece = SecretVec::from(Vec::with_capacity(CHUNK + 2 * variant.rate()));

    if encrypt {
        let mut sealer = pi.sealer(&npub, Some(&nsec))?;
        sealer.ad(&ad);
        let mut out = Output::open(args.io.output.as_deref())?;
        let mut sealing = sealer.start(&mut piece);
        out.write(&piece)?;
        for_each_chunk(&mut input, &in_name, |c| {
            piece.clear();
            sealing.update(c, &mut piece);
            out.write(&piece)
        })?;
        piece.clear();
        sealing.finish(&mut piece);
        out.write(&piece)?;
        return out.commit();
    }

    let mut opener = pi.opener(&npub, true)?;
    opener.ad(&ad);
    let mut opening = opener.start();
    let mut held = Held::open(args.io.output.as_deref())?;
    for_each_chunk(&mut input, &in_name, |c| {
        piece.clear();
        opening.update_unverified(c, &mut piece);
        held.write(&piece)
    })?;
    piece.clear();
    // A failed check returns here: `held` drops, removing the unverified plaintext.
    let nsec = opening.finish(&mut piece)?;
    held.write(&piece)?;
    if let Some(path) = &args.nsec_out {
        let text = Zeroizing::new(format!("{}\n", hex::encode(&nsec[..])));
        let mut out = Output::open(Some(path))?;
        out.write(text.as_bytes())?;
        out.commit()?;
    }
    held.release()
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
            } else if b.features().iter().all(|&f| bitweave::cpu::detected(f)) {
                " (hidden by the CPU cap)"
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
    for b in PiBackend::ALL {
        println!("  {:<9}{}", b.name(), b.why());
    }
}
