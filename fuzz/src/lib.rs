//! Helpers shared by the fuzz targets: a byte reader that turns the fuzzer's input into
//! choices and fields, the cipher/mode/backend tables the choices index, and the chunked
//! run of a [`Crypter`].
//!
//! Input layouts are documented in each target; `make_seeds.py` writes seeds in the same
//! layouts from the project's test vectors.

use bitweave::hazmat::registry;
use bitweave::{Cipher, CipherKind, Direction, Error, Mode, ModeParams};

/// Reads the fuzzer's bytes front to back. Past the end, bytes read as zero and fields
/// come back zero-filled, so every input maps to some case.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data }
    }

    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next `n` bytes, zero-filled past the end.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let take = n.min(self.data.len());
        let mut v = self.data[..take].to_vec();
        self.data = &self.data[take..];
        v.resize(n, 0);
        v
    }

    /// At most `n` bytes (fewer at the end), not zero-filled.
    pub fn up_to(&mut self, n: usize) -> &'a [u8] {
        let take = n.min(self.data.len());
        let (head, rest) = self.data.split_at(take);
        self.data = rest;
        head
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }
}

/// The cipher a byte picks.
pub fn cipher_kind(b: u8) -> CipherKind {
    CipherKind::ALL[b as usize % CipherKind::ALL.len()]
}

/// The mode a byte picks.
pub fn mode(b: u8) -> Mode {
    Mode::ALL[b as usize % Mode::ALL.len()]
}

/// The backends of `kind` this CPU runs other than `soft`, best first (every cipher has at
/// least one: the portable bitsliced or `ct64` backend).
pub fn fast_backends(kind: CipherKind) -> Vec<&'static str> {
    registry::usable(kind)
        .into_iter()
        .map(|b| b.name)
        .filter(|&n| n != "soft")
        .collect()
}

/// Cuts `data` into the pieces a run of `update` calls gets: `sizes` are the pieces'
/// lengths in order (cycled), a zero size giving an empty update.
pub fn pieces<'d>(data: &'d [u8], sizes: &[u16]) -> Vec<&'d [u8]> {
    if sizes.is_empty() {
        return vec![data];
    }
    let mut out = Vec::new();
    let mut rest = data;
    let mut i = 0;
    while !rest.is_empty() {
        let n = (sizes[i % sizes.len()] as usize).min(rest.len());
        let (head, tail) = rest.split_at(n);
        out.push(head);
        rest = tail;
        i += 1;
        // Zero sizes alone would never finish: after a full cycle, take the rest.
        if i >= sizes.len() && out.iter().all(|p| p.is_empty()) {
            out.push(rest);
            break;
        }
    }
    out
}

/// Runs `params` through [`Crypter`](bitweave::Crypter) on the given pieces, then
/// `finish`: every piece through `update`, or with `in_place` through `update_in_place`
/// where the `Crypter` accepts it (whole units, nothing pending or held back) and `update`
/// where it refuses. Any of these must give the one-shot bytes.
pub fn run_pieces(
    params: &ModeParams,
    cipher: &Cipher,
    dir: Direction,
    iv: &[u8],
    pieces: &[&[u8]],
    in_place: bool,
) -> Result<Vec<u8>, Error> {
    let mut c = params.crypter(cipher, dir, iv)?;
    let mut out = Vec::new();
    for p in pieces {
        if !in_place {
            c.update(p, &mut out);
            continue;
        }
        let mut buf = p.to_vec();
        match c.update_in_place(&mut buf) {
            Ok(()) => out.extend_from_slice(&buf),
            Err(Error::InPlaceUnavailable { .. }) => c.update(p, &mut out),
            Err(e) => panic!("update_in_place failed with {e}"),
        }
    }
    c.finish(&mut out)?;
    Ok(out)
}

/// PKCS#7 unpadding written the obvious way, to hold the constant-time one to: the pad
/// length of `block`, or `None` when the padding is invalid (or the block empty).
pub fn reference_unpad_len(block: &[u8]) -> Option<usize> {
    let n = *block.last()? as usize;
    if n == 0 || n > block.len() {
        return None;
    }
    block[block.len() - n..]
        .iter()
        .all(|&b| b as usize == n)
        .then_some(n)
}
