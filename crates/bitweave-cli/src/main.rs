//! `bitweave`: encrypt and decrypt byte-compatibly with `openssl enc`, list what this CPU
//! can run, and benchmark against OpenSSL and libgcrypt in the same process (the
//! `bitweave-bench` crate; built without the `peers` feature, bitweave alone).

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod aead;
mod args;
mod base64;
mod crypt;
mod input;
mod list;
mod openssl_args;
mod output;
mod password;
mod pipeline;
mod progress;
mod seal;
mod signals;
mod sim;
#[cfg(test)]
mod test_support;

#[derive(Parser)]
#[command(
    name = "bitweave",
    version,
    about = "Parallel block-cipher processing: AES, DES, 3DES, SEED in every SP 800-38A mode"
)]
struct Cli {
    /// No progress bar (it shows only on a terminal, during long work).
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Encrypt (raw, unauthenticated; byte-compatible with `openssl enc -e -K .. -iv ..`).
    Enc(crypt::CryptArgs),
    /// Decrypt (byte-compatible with `openssl enc -d -K .. -iv ..`).
    Dec(crypt::CryptArgs),
    /// List ciphers, modes and the backends this CPU can run.
    List,
    /// Measure throughput and cycles/byte, with OpenSSL measured in the same run.
    Bench(bitweave_bench::BenchArgs),
    /// Authenticated encryption with π-Cipher v2: writes E(nsec) || C || T.
    AeadEnc(aead::AeadArgs),
    /// Authenticated decryption with π-Cipher v2: checks the tag, then writes the plaintext.
    AeadDec(aead::AeadArgs),
    /// Run an architecture model of a paper's hardware (`bitweave sim list`).
    Sim(sim::SimArgs),
    /// Encrypt and authenticate a file under a passphrase or key file (streaming, chunked).
    Seal(seal::SealArgs),
    /// Check and decrypt a sealed file; any tampering fails with no output.
    Open(seal::OpenArgs),
}

fn main() -> ExitCode {
    let args = match openssl_args::translate(std::env::args_os().collect()) {
        Ok(a) => a,
        // A malformed command line in openssl's spelling is a usage error, as clap makes
        // one of a malformed line in ours: the message, the command's usage, exit 2.
        Err(bad) => usage_error(&bad),
    };
    let cli = Cli::parse_from(args);
    signals::install(matches!(
        cli.command,
        Command::Bench(_) | Command::Sim(_) | Command::List
    ));
    // A bad tier cap fails every command the same way, before any work.
    let result = bitweave::cpu::check()
        .map_err(anyhow::Error::msg)
        .and_then(|()| match cli.command {
            Command::Enc(args) => crypt::run(args, bitweave::Direction::Encrypt, cli.quiet),
            Command::Dec(args) => crypt::run(args, bitweave::Direction::Decrypt, cli.quiet),
            Command::List => list::run(),
            Command::Bench(args) => bitweave_bench::run(args),
            Command::Sim(args) => sim::run(args),
            Command::AeadEnc(args) => aead::run(args, true),
            Command::AeadDec(args) => aead::run(args, false),
            Command::Seal(args) => seal::run_seal(args, cli.quiet),
            Command::Open(args) => seal::run_open(args, cli.quiet),
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the outermost context and its causes, and the command's own hint.
            let msg = e
                .chain()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(": ");
            match hint(&e) {
                Some(h) => eprintln!("error: {msg} ({h})"),
                None => eprintln!("error: {msg}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// Where the command line helps with a library error: the library's messages name no
/// flag or command (Python users see them too).
fn hint(e: &anyhow::Error) -> Option<&'static str> {
    use bitweave::seal::SealError;
    e.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<bitweave::Error>() {
            return match e {
                bitweave::Error::UnknownCipher(_) => {
                    Some("run `bitweave list` for the supported names")
                }
                bitweave::Error::UnknownBackend(_) => Some("run `bitweave list` for the backends"),
                bitweave::Error::MissingIv(_) => Some("--iv"),
                _ => None,
            };
        }
        match cause.downcast_ref::<SealError>() {
            Some(SealError::NeedKey) => Some("--key-file"),
            _ => None,
        }
    })
}

/// Exits with clap's usage error for `enc`/`dec` (the only commands the openssl spelling
/// applies to): `error: MESSAGE`, the command's usage lines, exit status 2.
fn usage_error(bad: &openssl_args::BadOption) -> ! {
    let mut cli = Cli::command();
    cli.build();
    let kind = if bad.missing_value {
        clap::error::ErrorKind::InvalidValue
    } else {
        clap::error::ErrorKind::UnknownArgument
    };
    cli.find_subcommand_mut(bad.command)
        .expect("enc and dec are subcommands")
        .error(kind, &bad.message)
        .exit()
}
