//! `openssl enc -a`: the output base64-encoded as it is written, the input decoded as it is
//! read. Byte for byte openssl's layout: lines of 64 characters each ending in a newline,
//! or with `-A` one line and no newline at all; nothing for an empty output. Decoding
//! skips whitespace wherever it is, so both layouts (and CRLF lines) read back. The
//! alphabet work is `base64ct`'s (constant-time, RustCrypto).

use std::io::{self, Read};

use base64ct::{Base64, Encoding};

/// Bytes per output line: 48 bytes are 64 characters.
const LINE_BYTES: usize = 48;

/// Encodes a stream given in pieces of any length.
pub struct Encoder {
    /// Bytes of an unfinished line (or, on one line, of an unfinished 3-byte group).
    carry: Vec<u8>,
    wrap: bool,
}

impl Encoder {
    /// `wrap`: 64-character lines (`-a`); otherwise one line (`-a -A`).
    pub fn new(wrap: bool) -> Self {
        Encoder {
            carry: Vec::new(),
            wrap,
        }
    }

    /// The text for `data`, up to its last whole line (or group); the rest is carried.
    pub fn encode(&mut self, data: &[u8]) -> Vec<u8> {
        self.carry.extend_from_slice(data);
        let unit = if self.wrap { LINE_BYTES } else { 3 };
        let whole = self.carry.len() / unit * unit;
        let text = self.text(&self.carry[..whole]);
        self.carry.drain(..whole);
        text
    }

    /// The text of what is carried, padded, and the last line's newline.
    pub fn finish(self) -> Vec<u8> {
        self.text(&self.carry)
    }

    /// 48 bytes at a time (64 characters; only the last group may be padded), each
    /// followed by a newline when wrapping.
    fn text(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len() / 3 * 4 + bytes.len() / LINE_BYTES + 8);
        let mut chars = [0u8; 64];
        for group in bytes.chunks(LINE_BYTES) {
            let s = Base64::encode(group, &mut chars).expect("64 characters hold 48 bytes");
            out.extend_from_slice(s.as_bytes());
            if self.wrap {
                out.push(b'\n');
            }
        }
        out
    }
}

/// A reader of the bytes a base64 text encodes.
pub struct Decoder<R> {
    inner: R,
    /// The read buffer, reused across refills.
    raw: Vec<u8>,
    /// Characters read but not yet decoded (fewer than 4 between refills).
    chars: Vec<u8>,
    /// Decoded bytes not yet handed out, from `pos` on.
    bytes: Vec<u8>,
    pos: usize,
    /// A padded group was decoded: only whitespace may follow.
    padded: bool,
    eof: bool,
}

impl<R: Read> Decoder<R> {
    pub fn new(inner: R) -> Self {
        Decoder {
            inner,
            raw: vec![0u8; 1 << 16],
            chars: Vec::new(),
            bytes: Vec::new(),
            pos: 0,
            padded: false,
            eof: false,
        }
    }

    /// Reads the next piece of text and decodes its whole groups.
    fn refill(&mut self) -> io::Result<()> {
        let n = loop {
            match self.inner.read(&mut self.raw) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        if n == 0 {
            self.eof = true;
            if !self.chars.is_empty() {
                return Err(invalid("the base64 text ends inside a 4-character group"));
            }
            return Ok(());
        }
        for &c in self.raw[..n].iter().filter(|c| !c.is_ascii_whitespace()) {
            if self.padded {
                return Err(invalid(
                    "the base64 text goes on after its final '=' padding",
                ));
            }
            if !(c.is_ascii_alphanumeric() || b"+/=".contains(&c)) {
                return Err(invalid(NOT_BASE64));
            }
            self.chars.push(c);
            if c == b'=' && self.chars.len().is_multiple_of(4) {
                self.padded = true;
            }
        }
        let whole = self.chars.len() / 4 * 4;
        self.bytes.resize(whole / 4 * 3, 0);
        let len = Base64::decode(&self.chars[..whole], &mut self.bytes)
            .map_err(|_| invalid(NOT_BASE64))?
            .len();
        self.bytes.truncate(len);
        self.pos = 0;
        self.chars.drain(..whole);
        Ok(())
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.bytes.len() && !self.eof {
            self.refill()?;
        }
        let n = buf.len().min(self.bytes.len() - self.pos);
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

const NOT_BASE64: &str = "not base64 text (-a expects what openssl enc -a writes)";

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_in_pieces(data: &[u8], wrap: bool, piece: usize) -> Vec<u8> {
        let mut e = Encoder::new(wrap);
        let mut out = Vec::new();
        for p in data.chunks(piece.max(1)) {
            out.extend(e.encode(p));
        }
        out.extend(e.finish());
        out
    }

    #[test]
    fn layout_is_openssls() {
        assert!(encode_in_pieces(&[], true, 7).is_empty());
        let one_line = encode_in_pieces(&[0; 48], true, 5);
        assert_eq!(one_line.len(), 65);
        assert_eq!(one_line[64], b'\n');
        let two = encode_in_pieces(&[0; 49], true, 48);
        assert_eq!(two, [&one_line[..], b"AA==\n"].concat());
        let flat = encode_in_pieces(&[0; 100], false, 7);
        assert!(!flat.contains(&b'\n'));
        assert_eq!(flat.len(), 136);
    }

    #[test]
    fn round_trips_for_every_length_and_piece_size() {
        let data: Vec<u8> = (0..400u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in [0, 1, 2, 3, 47, 48, 49, 95, 96, 97, 400] {
            for wrap in [true, false] {
                for piece in [1, 3, 48, 1000] {
                    let text = encode_in_pieces(&data[..len], wrap, piece);
                    let mut back = Vec::new();
                    Decoder::new(&text[..]).read_to_end(&mut back).unwrap();
                    assert_eq!(back, &data[..len], "len {len} wrap {wrap} piece {piece}");
                }
            }
        }
    }

    #[test]
    fn bad_text_is_an_error() {
        let bad = |t: &[u8]| {
            let mut v = Vec::new();
            Decoder::new(t).read_to_end(&mut v).unwrap_err().to_string()
        };
        assert!(bad(b"AAA").contains("ends inside"));
        assert!(bad(b"AA*A").contains("not base64"));
        assert!(bad(b"A=AA").contains("not base64"));
        assert!(bad(b"AA==\nAAAA\n").contains("after its final"));
        let mut v = Vec::new();
        Decoder::new(&b" QU\r\nJD \n"[..])
            .read_to_end(&mut v)
            .unwrap();
        assert_eq!(v, b"ABC");
    }
}
