//! Differential: interleaved CBC / full-block CFB / OFB against the contract of DESIGN.md
//! "Interleaving", computed the slow way: pad the whole message (when padding is on),
//! split it into blocks, run stream k = blocks k, k+N, k+2N, ... through the standard mode
//! with IV_k on `soft`, put block i back at position i (then unpad the whole message when
//! decrypting). The interleaved run uses a fuzzer-chosen backend; results, errors
//! included, must be equal.
//!
//! Input: cipher, mode (cbc/cfb/ofb), N - 1 (mod 48), flags (bit 0 padding on cbc, bit 1
//! decrypt, bits 2.. the backend), key, N IV blocks, then the data.
#![no_main]

use bitweave::hazmat::registry;
use bitweave::mode::padding;
use bitweave::{Cipher, Direction, Error, Mode, ModeParams};
use bitweave_fuzz::{cipher_kind, reference_unpad_len, Reader};
use libfuzzer_sys::fuzz_target;

/// Splits `buf` into blocks, runs stream k with `ivs[k]` through the standard mode
/// (no padding), and puts every block back in place.
fn by_streams(
    std: &ModeParams,
    soft: &Cipher,
    dir: Direction,
    ivs: &[u8],
    n: usize,
    buf: &[u8],
) -> Vec<u8> {
    let bs = soft.kind().block_size();
    let blocks: Vec<&[u8]> = buf.chunks(bs).collect();
    let mut out = vec![0u8; buf.len()];
    for k in 0..n {
        let idx: Vec<usize> = (k..blocks.len()).step_by(n).collect();
        let stream: Vec<u8> = idx.iter().flat_map(|&i| blocks[i].to_vec()).collect();
        let iv = &ivs[k * bs..(k + 1) * bs];
        let done = match dir {
            Direction::Encrypt => std.encrypt_all(soft, iv, &stream),
            Direction::Decrypt => std.decrypt_all(soft, iv, &stream),
        }
        .expect("standard mode on a stream of whole blocks (or a partial cfb/ofb tail)");
        for (j, &i) in idx.iter().enumerate() {
            let len = blocks[i].len();
            out[i * bs..i * bs + len].copy_from_slice(&done[j * bs..j * bs + len]);
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let kind = cipher_kind(r.u8());
    let mode = [Mode::Cbc, Mode::Cfb, Mode::Ofb][r.u8() as usize % 3];
    let n = 1 + r.u8() as usize % 48;
    let flags = r.u8();
    let padding = mode == Mode::Cbc && flags & 1 != 0;
    let dir = if flags & 2 != 0 {
        Direction::Decrypt
    } else {
        Direction::Encrypt
    };
    let backends: Vec<&str> = registry::usable(kind).iter().map(|b| b.name).collect();
    let backend = backends[(flags >> 2) as usize % backends.len()];
    let bs = kind.block_size();
    let key = r.bytes(kind.key_len());
    let ivs = r.bytes(n * bs);
    let input = r.rest();

    let cipher = Cipher::with_backend(kind, &key, Some(backend)).expect("usable backend");
    let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
    let params = ModeParams::new(mode).interleave(n).padding(padding);
    let std = ModeParams::new(mode).padding(false);
    let got = match dir {
        Direction::Encrypt => params.encrypt_all(&cipher, &ivs, input),
        Direction::Decrypt => params.decrypt_all(&cipher, &ivs, input),
    };

    let not_whole = Err(Error::NotWholeBlocks {
        len: input.len() as u64,
        block: bs,
    });
    let want = match dir {
        Direction::Encrypt => {
            let mut buf = input.to_vec();
            if padding {
                buf.extend_from_slice(&padding::pad(input.len(), bs));
            }
            if mode == Mode::Cbc && !buf.len().is_multiple_of(bs) {
                not_whole
            } else {
                Ok(by_streams(&std, &soft, dir, &ivs, n, &buf))
            }
        }
        Direction::Decrypt => {
            if mode == Mode::Cbc
                && (!input.len().is_multiple_of(bs) || (padding && input.is_empty()))
            {
                not_whole
            } else {
                let mut plain = by_streams(&std, &soft, dir, &ivs, n, input);
                if padding {
                    match reference_unpad_len(&plain[plain.len() - bs..]) {
                        Some(p) => {
                            plain.truncate(plain.len() - p);
                            Ok(plain)
                        }
                        None => Err(Error::BadPadding),
                    }
                } else {
                    Ok(plain)
                }
            }
        }
    };
    assert_eq!(
        got, want,
        "{kind}-{mode} x{n} pad={padding} {dir:?} on {backend}: interleaved vs per-stream"
    );
});
