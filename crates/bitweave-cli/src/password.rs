//! Where a password comes from: small secret files, the terminal prompt, and `openssl`'s
//! `-pass` sources (`pass:`, `env:`, `file:`, `fd:`, `stdin`). Passwords live in
//! [`Zeroizing`] buffers and are never printed.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use zeroize::Zeroizing;

use crate::output::reason;

/// The largest secret file read (a key or passphrase file is tiny; a huge one is a mistake).
pub const MAX_SECRET_FILE: u64 = 64 * 1024;

/// Reads a small secret file whole.
pub fn read_secret_file(path: &Path, what: &str) -> Result<Zeroizing<Vec<u8>>> {
    let fail = |e: io::Error| anyhow!("cannot read {what} '{}': {}", path.display(), reason(&e));
    let f = File::open(path).map_err(fail)?;
    let mut data = Zeroizing::new(Vec::new());
    f.take(MAX_SECRET_FILE + 1)
        .read_to_end(&mut data)
        .map_err(fail)?;
    if data.len() as u64 > MAX_SECRET_FILE {
        bail!("{what} '{}' is too large", path.display());
    }
    Ok(data)
}

/// The first line of `bytes`, without its line ending.
pub fn first_line(bytes: &[u8]) -> &[u8] {
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or(&[]);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Asks on the terminal (twice when `confirm`); `none` says what to use instead when
/// there is no terminal.
pub fn prompt(what: &str, confirm: bool, none: &str) -> Result<Zeroizing<Vec<u8>>> {
    let ask = |p: &str| {
        rpassword::prompt_password(p)
            .map(Zeroizing::new)
            .map_err(|_| anyhow!("no {what}: there is no terminal to ask on; {none}"))
    };
    let first = ask(&format!("{what}: "))?;
    if confirm && first != ask(&format!("{what} again: "))? {
        bail!("the two {what}s differ");
    }
    Ok(Zeroizing::new(first.as_bytes().to_vec()))
}

/// A password from an `openssl -pass` source: `pass:TEXT`, `env:VAR`, `file:PATH` (first
/// line), `fd:N` (first line) or `stdin` (first line, read byte by byte so that what
/// follows stays for the data).
pub fn from_source(source: &str) -> Result<Zeroizing<Vec<u8>>> {
    let (kind, arg) = source.split_once(':').unwrap_or((source, ""));
    let pw = match kind {
        "pass" => Zeroizing::new(arg.as_bytes().to_vec()),
        "env" => match std::env::var_os(arg) {
            Some(v) => Zeroizing::new(v.into_encoded_bytes()),
            None => bail!("password source env:{arg}: the variable is not set"),
        },
        "file" => {
            let data = read_secret_file(Path::new(arg), "password file")?;
            Zeroizing::new(first_line(&data).to_vec())
        }
        "fd" => {
            let n: u32 = arg
                .parse()
                .map_err(|_| anyhow!("password source fd:{arg}: not a file descriptor number"))?;
            let data = read_secret_file(&Path::new("/dev/fd").join(n.to_string()), "password fd")?;
            Zeroizing::new(first_line(&data).to_vec())
        }
        "stdin" => line_from_stdin()?,
        _ => {
            bail!("unknown password source '{kind}' (pass:TEXT, env:VAR, file:PATH, fd:N or stdin)")
        }
    };
    Ok(pw)
}

/// One line from standard input, without consuming anything after it.
fn line_from_stdin() -> Result<Zeroizing<Vec<u8>>> {
    let mut line = Zeroizing::new(Vec::new());
    let mut byte = [0u8; 1];
    // The descriptor itself, not Rust's buffered `Stdin`: a buffer would swallow the
    // data after the line.
    let fd = io::stdin().as_fd().try_clone_to_owned().map_err(|e| {
        anyhow!(
            "cannot read the password from standard input: {}",
            reason(&e)
        )
    })?;
    let mut stdin = File::from(fd);
    loop {
        match stdin.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => bail!(
                "cannot read the password from standard input: {}",
                reason(&e)
            ),
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources() {
        assert_eq!(&from_source("pass:hunter2").unwrap()[..], b"hunter2");
        std::env::set_var("BITWEAVE_TEST_PW", "from env");
        assert_eq!(
            &from_source("env:BITWEAVE_TEST_PW").unwrap()[..],
            b"from env"
        );
        let err = from_source("env:BITWEAVE_SURELY_UNSET")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not set"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("pw");
        std::fs::write(&f, b"first\r\nsecond\n").unwrap();
        assert_eq!(
            &from_source(&format!("file:{}", f.display())).unwrap()[..],
            b"first"
        );
        let err = from_source("word:x").unwrap_err().to_string();
        assert!(err.contains("unknown password source 'word'"), "{err}");
        // The message never contains the password itself.
        let err = from_source("fd:notanumber").unwrap_err().to_string();
        assert!(err.contains("fd:notanumber"), "{err}");
    }
}
