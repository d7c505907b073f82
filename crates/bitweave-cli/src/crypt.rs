//! `bitweave enc` / `bitweave dec`: raw encryption compatible with `openssl enc`.

use std::io::Read;

use anyhow::{anyhow, bail, Result};
use bitweave::{salted, Cipher, Crypter, Direction, SecretVec, Suite};
use clap::Args;

use crate::args::{parse_hex, IoArgs};
use crate::base64;
use crate::input;
use crate::output::{reason, Output};
use crate::password;
use crate::pipeline::{self, Pace, Piece};
use crate::progress::Progress;

#[derive(Args)]
pub struct CryptArgs {
    /// Cipher and mode, OpenSSL spelling (aes-128-cbc, des-ede3, seed-ofb, ...).
    #[arg(short = 'c', long = "cipher")]
    cipher: String,
    /// Key as hex (exactly the cipher's key length); or derive key and IV from a password
    /// (--pass, or asked on the terminal when neither is given, as openssl does).
    #[arg(short = 'K', long = "key", value_name = "HEXKEY")]
    key: Option<String>,
    /// IV as hex: one block, or N blocks with --interleave N (not used by ECB). With
    /// --pass it replaces the derived IV.
    #[arg(long = "iv", value_name = "HEXIV")]
    iv: Option<String>,
    /// Password source, as openssl's -pass: pass:TEXT, env:VAR, file:PATH, fd:N, stdin.
    /// The file is openssl's "Salted__" format: readable by `openssl enc -d` with the same
    /// -pass/-pbkdf2/-iter/-md, and it reads theirs.
    #[arg(long, value_name = "SOURCE", conflicts_with = "key")]
    pass: Option<String>,
    /// Derive with PBKDF2-HMAC (openssl -pbkdf2) instead of the legacy EVP_BytesToKey.
    #[arg(long, conflicts_with = "key")]
    pbkdf2: bool,
    /// PBKDF2 iterations (implies --pbkdf2) [openssl's default: 10000].
    #[arg(long, value_name = "N", conflicts_with = "key")]
    iter: Option<u32>,
    /// Digest of the derivation: md5, sha1, sha256 (default, as OpenSSL 3), sha512.
    #[arg(
        long,
        value_name = "DIGEST",
        conflicts_with = "key",
        default_value = "sha256"
    )]
    md: String,
    /// The salt as 16 hex digits instead of a random one (openssl -S); as with openssl,
    /// it is then not written to the output (nor read from the input).
    #[arg(
        short = 'S',
        long = "salt-hex",
        value_name = "HEXSALT",
        conflicts_with = "key"
    )]
    salt: Option<String>,
    /// No salt and no "Salted__" header (openssl -nosalt; weakens the password).
    #[arg(long, conflicts_with_all = ["key", "salt"])]
    nosalt: bool,
    /// Print the salt, key and IV (openssl -p); -P prints them and stops.
    #[arg(short = 'p', long = "print-key")]
    print_key: bool,
    /// Print the salt, key and IV and do nothing else (openssl -P).
    #[arg(short = 'P', long = "print-key-only")]
    print_key_only: bool,
    /// Base64 (openssl -a / -base64): encryption writes 64-character lines, decryption
    /// reads base64 text (any line layout).
    #[arg(short = 'a', long = "base64")]
    pub base64: bool,
    /// With -a: the base64 text on one line, without newlines (openssl -A); ignored
    /// without -a, as by openssl.
    #[arg(short = 'A', long = "base64-one-line")]
    pub base64_one_line: bool,
    /// No PKCS#7 padding (ECB/CBC input must then be whole blocks).
    #[arg(long)]
    nopad: bool,
    /// Interleave N chains (cbc, cfb, ofb); 1 is the standard mode.
    #[arg(long, default_value_t = 1, value_name = "N")]
    interleave: usize,
    #[command(flatten)]
    io: IoArgs,
    /// Backend to use (see `bitweave list`); default: the best this CPU runs.
    #[arg(long)]
    backend: Option<String>,
    /// Threads for large inputs (0 = all cores); the output is the same for any value.
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
}

pub fn run(args: CryptArgs, direction: Direction, quiet: bool) -> Result<()> {
    let suite: Suite = args.cipher.parse()?;
    let params = suite
        .params()
        .padding(suite.mode.whole_blocks() && !args.nopad)
        .interleave(args.interleave);
    params.validate()?;
    let explicit_iv = match &args.iv {
        Some(s) if !suite.mode.takes_iv() => {
            parse_hex("IV (--iv)", s)?;
            eprintln!("warning: iv not used by this cipher");
            None
        }
        Some(s) => Some(parse_hex("IV (--iv)", s)?),
        None => None,
    };
    let mut input = input::open(args.io.input.as_deref())?;
    if args.base64 && direction == Direction::Decrypt {
        let text = std::mem::replace(&mut input.reader, Box::new(std::io::empty()));
        input.reader = Box::new(base64::Decoder::new(text));
        // The progress bar counts decoded bytes: the text's size would overshoot.
        input.size = None;
    }
    // With a password, the salt comes from the input's header when decrypting, so the
    // input is opened before the key exists.
    let (key, iv, salt, header) = match &args.key {
        Some(hex) => {
            let key = parse_hex("key (-K)", hex)?;
            (key, explicit_iv.unwrap_or_default(), None, None)
        }
        None => {
            if args.interleave > 1 {
                bail!(
                    "a password makes openssl's format, which has no interleaving: drop --interleave or give -K"
                );
            }
            let source = args.pass.as_deref();
            let PasswordKey {
                derived,
                salt,
                header,
            } = password_key(&args, source, suite, direction, &mut input)?;
            let iv = explicit_iv.unwrap_or(derived.iv);
            (derived.key, iv, salt, header)
        }
    };
    if args.print_key || args.print_key_only {
        print_key(salt.as_ref(), &key, &iv);
        if args.print_key_only {
            return Ok(());
        }
    }
    let cipher = Cipher::with_backend(suite.cipher, &key, args.backend.as_deref())?
        .with_threads(args.threads);
    let crypter = params.crypter(&cipher, direction, &iv)?;

    let mut out = Output::open(args.io.output.as_deref())?;
    let mut encoder = (args.base64 && direction == Direction::Encrypt)
        .then(|| base64::Encoder::new(!args.base64_one_line));
    if let Some(h) = header {
        write_out(&mut out, encoder.as_mut(), &h)?;
    }
    // Sized to the input file when there is one (a pipe shows bytes and rate only).
    let total = input.size;
    let label = match direction {
        Direction::Encrypt => "enc",
        Direction::Decrypt => "dec",
    };
    let progress = Progress::new(total, label, quiet);
    let result = stream(
        crypter,
        &mut input.reader,
        &input.name,
        &mut out,
        encoder,
        progress,
    );
    if let (Err(e), Some(_)) = (&result, &args.pass) {
        if matches!(
            e.downcast_ref::<bitweave::Error>(),
            Some(bitweave::Error::BadPadding)
        ) {
            bail!("bad decrypt: wrong password, wrong -pbkdf2/-iter/-md, or a corrupted file");
        }
    }
    result?;
    out.commit()
}

/// What a password gives a run.
struct PasswordKey {
    derived: salted::Derived,
    salt: Option<[u8; 8]>,
    /// The header to write (with a fresh salt only).
    header: Option<[u8; salted::HEADER_LEN]>,
}

/// Key and IV from the password (from `source`, or asked on the terminal as openssl
/// does): the salt is fresh (or `-S`) when encrypting and read from the input's
/// `Salted__` header when decrypting; none with `--nosalt` ([`salted::SaltRule`]).
fn password_key(
    args: &CryptArgs,
    source: Option<&str>,
    suite: Suite,
    direction: Direction,
    input: &mut input::Input,
) -> Result<PasswordKey> {
    let md: salted::Md = args.md.parse()?;
    // Asked first, as openssl does: nothing is printed before the password is known.
    let password = match source {
        Some(s) => password::from_source(s)?,
        None => {
            let what = match direction {
                Direction::Encrypt => "encryption",
                Direction::Decrypt => "decryption",
            };
            let what = format!("{} {what} password", suite.to_string().to_uppercase());
            let confirm = direction == Direction::Encrypt;
            password::prompt(&what, confirm, "give -K HEXKEY or --pass SOURCE")?
        }
    };
    let kdf = if args.pbkdf2 || args.iter.is_some() {
        salted::Kdf::Pbkdf2 {
            md,
            iter: args.iter.unwrap_or(salted::DEFAULT_ITER),
        }
    } else {
        // openssl's own warning, word for word, on both directions.
        eprintln!("*** WARNING : deprecated key derivation used.\nUsing -iter or -pbkdf2 would be better.");
        salted::Kdf::Legacy(md)
    };
    let given: Option<[u8; 8]> = match &args.salt {
        Some(hex) if !args.nosalt => {
            let v = parse_hex("salt (-S)", hex)?;
            Some(v[..].try_into().map_err(|_| {
                anyhow!("salt (-S) must be 8 bytes (16 hex digits), not {}", v.len())
            })?)
        }
        _ => None,
    };
    let rule = salted::SaltRule::new(args.nosalt, given, direction);
    let salt: Option<[u8; 8]> = match rule {
        salted::SaltRule::None => None,
        salted::SaltRule::Given(s) => Some(s),
        salted::SaltRule::Fresh => Some(salted::random_salt()?),
        salted::SaltRule::FromHeader => {
            let mut h = [0u8; salted::HEADER_LEN];
            let n = read_up_to(&mut input.reader, &mut h)
                .map_err(|e| anyhow!("cannot read {}: {}", input.name, reason(&e)))?;
            Some(salted::read_salt(&h[..n]).map_err(|e| anyhow!("{}: {e}", input.name))?)
        }
    };
    let derived = salted::derive(
        kdf,
        &password,
        salt.as_ref().map_or(&[][..], |s| &s[..]),
        suite.cipher.key_len(),
        salted::iv_len(suite),
    );
    let header = salt
        .filter(|_| rule == salted::SaltRule::Fresh)
        .map(|s| salted::header(&s));
    Ok(PasswordKey {
        derived,
        salt,
        header,
    })
}

/// Reads until `buf` is full or the input ends; returns how many bytes came.
fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// openssl's `-p`/`-P` lines (on standard output, as openssl prints them).
fn print_key(salt: Option<&[u8; 8]>, key: &[u8], iv: &[u8]) {
    if let Some(s) = salt {
        println!("salt={}", hex::encode_upper(s));
    }
    println!("key={}", hex::encode_upper(key));
    if !iv.is_empty() {
        println!("iv ={}", hex::encode_upper(iv));
    }
}

/// Writes `data` to `out`, as base64 text when there is an encoder.
fn write_out(out: &mut Output, encoder: Option<&mut base64::Encoder>, data: &[u8]) -> Result<()> {
    match encoder {
        Some(e) => out.write(&e.encode(data)),
        None => out.write(data),
    }
}

/// Runs `input` through `crypter` into `out`, reading, encrypting and writing at once
/// ([`pipeline`]). Every piece but the last is transformed in place; the last goes through
/// `update` and `finish` (padding). On an error (unreadable input, full disk, bad padding)
/// it returns before `out` is committed, so a file output never appears. With `encoder`
/// the output is written as base64 text.
fn stream(
    crypter: Crypter,
    input: &mut (dyn Read + Send),
    in_name: &str,
    out: &mut Output,
    mut encoder: Option<base64::Encoder>,
    mut progress: Progress,
) -> Result<()> {
    // Whole units per piece, so in-place work always applies before the end.
    let unit = crypter.unit();
    let piece_len = (pipeline::PIECE / unit).max(1) * unit;
    // The threads asked for (0 = all cores) while the cipher sets the pace; one thread
    // while reading or writing does (`Pace`).
    let threads = crypter.threads();
    let mut using = threads;
    let mut crypter = Some(crypter);
    let mut transform = |piece: &mut Piece, last: bool, pace: &Pace| -> Result<()> {
        progress.inc(piece.len as u64);
        let c = crypter.as_mut().expect("no piece after the last");
        let wanted = if pace.io_bound() { 1 } else { threads };
        if wanted != using {
            c.set_threads(wanted);
            using = wanted;
        }
        if !last {
            return Ok(c.update_in_place_before_end(piece.data())?);
        }
        let mut result = SecretVec::from(Vec::with_capacity(piece.len + 64));
        c.update(piece.data(), &mut result);
        crypter
            .take()
            .expect("one last piece")
            .finish(&mut result)?;
        // The piece's old buffer is wiped as it drops here.
        piece.replace(result);
        Ok(())
    };
    let mut write = |data: &[u8]| write_out(out, encoder.as_mut(), data);
    pipeline::run(input, in_name, piece_len, &mut transform, &mut write)?;
    if let Some(e) = encoder {
        out.write(&e.finish())?;
    }
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
                None,
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
