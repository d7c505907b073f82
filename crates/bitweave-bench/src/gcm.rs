//! AES-GCM rows: bitweave's `aead::gcm` (the engine of the sealed-file suite
//! `aes-256-gcm`) against OpenSSL's and libgcrypt's AES-GCM in the same run. One message
//! per call, keyed once: the nonce set, no AAD, the tag produced (encryption) or checked
//! (decryption). Every side works out of place from the same input buffer — bitweave,
//! whose calls are in place, copies the input first and is charged for the copy — so a
//! decryption call always sees the genuine ciphertext.

use std::time::Duration;

use anyhow::{bail, Result};
use bitweave::aead::gcm::{AesGcm, GhashBackend};
use bitweave::Direction;

use crate::aligned::LineAligned;
use crate::block::Row;
use crate::{clock, peers};

/// One peer call out of place into `$out`; whether it agreed with bitweave (the tag it
/// produced equals `$want`, or it accepted the tag). A macro: the peers are distinct types
/// with the same methods (or [`peers::Absent`] when not built in).
macro_rules! peer_call {
    ($p:expr, $dir:expr, $nonce:expr, $input:expr, $out:expr, $tag:expr, $want:expr) => {{
        let out = &mut $out[..$input.len()];
        match $dir {
            Direction::Encrypt => {
                let mut t = [0u8; 16];
                $p.encrypt($nonce, $input, out, &mut t);
                t == $want
            }
            Direction::Decrypt => $p.decrypt($nonce, $input, out, $tag),
        }
    }};
}

/// The names `--cipher` accepts for these rows, with their key lengths.
pub const NAMES: [(&str, usize); 3] = [
    ("aes-128-gcm", 16),
    ("aes-192-gcm", 24),
    ("aes-256-gcm", 32),
];

/// One AES-GCM row: `size`-byte messages with a `key_len`-byte key, on `ghash`.
pub fn measure_gcm(
    key_len: usize,
    ghash: GhashBackend,
    dir: Direction,
    size: usize,
    budget: Duration,
    tsc_hz: f64,
) -> Result<Row> {
    let key: Vec<u8> = (0..key_len).map(|i| i as u8 ^ 0x5c).collect();
    let nonce = [0x24u8; 12];
    let gcm = AesGcm::with_ghash(&key, ghash)?;
    let plain: Vec<u8> = (0..size).map(|i| (i * 29) as u8).collect();
    let mut sealed = plain.clone();
    let tag = gcm.encrypt_in_place(&nonce, &[], &mut sealed)?;
    // Line-aligned, as in the block rows: two `Vec`s made one after the other can sit
    // where copying between them is ~35× slower (see `LineAligned`), which cost this
    // row's copy 0.6-1.2 c/B on Zen 3 whenever an earlier row left the heap that way.
    let input = LineAligned::from_slice(match dir {
        Direction::Encrypt => &plain,
        Direction::Decrypt => &sealed,
    });
    let input = input.view();
    let mut out_buf = LineAligned::zeroed(size + 16);
    let out = out_buf.bytes();

    let ours = |out: &mut [u8]| {
        let out = &mut out[..size];
        out.copy_from_slice(input);
        match dir {
            Direction::Encrypt => {
                std::hint::black_box(gcm.encrypt_in_place(&nonce, &[], out).unwrap());
            }
            Direction::Decrypt => gcm.decrypt_in_place(&nonce, &[], out, &tag).unwrap(),
        }
    };
    let mut ossl = peers::OpenSslGcm::with_key(&key);
    let mut gcry = peers::GcryptGcm::with_key(&key);
    // Each peer must agree with bitweave before it is timed.
    let mut check = vec![0u8; size + 16];
    if let Some(p) = ossl.as_mut() {
        if !peer_call!(p, dir, &nonce, input, check, &tag, tag) {
            bail!(
                "aes-{}-gcm: OpenSSL's output differs from bitweave's",
                key_len * 8
            );
        }
    }
    if let Some(p) = gcry.as_mut() {
        if !peer_call!(p, dir, &nonce, input, check, &tag, tag) {
            bail!(
                "aes-{}-gcm: libgcrypt's output differs from bitweave's",
                key_len * 8
            );
        }
    }

    // Three rounds, the three sides alternating; each side's best.
    let (mut best, mut best_ossl, mut best_gcry) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..3 {
        best = best.min(clock::cycles_per_call(&mut || ours(out), budget));
        if let Some(p) = ossl.as_mut() {
            let mut call = || {
                std::hint::black_box(peer_call!(p, dir, &nonce, input, out, &tag, tag));
            };
            best_ossl = best_ossl.min(clock::cycles_per_call(&mut call, budget));
        }
        if let Some(p) = gcry.as_mut() {
            let mut call = || {
                std::hint::black_box(peer_call!(p, dir, &nonce, input, out, &tag, tag));
            };
            best_gcry = best_gcry.min(clock::cycles_per_call(&mut call, budget));
        }
    }
    let cpb = best / size as f64;
    let per_byte = |c: f64| (c < f64::MAX).then_some(c / size as f64);
    let (ossl_cpb, gcry_cpb) = (per_byte(best_ossl), per_byte(best_gcry));
    Ok(Row {
        cipher: format!("aes-{}-gcm", key_len * 8),
        direction: dir.name(),
        backend: if gcm.is_stitched() {
            "clmul128+aesni"
        } else {
            ghash_row_name(ghash)
        },
        threads: 1,
        interleave: 1,
        bytes: size,
        gbps: tsc_hz / cpb / 1e9,
        cycles_per_byte: cpb,
        openssl_gbps: ossl_cpb.map(|c| tsc_hz / c / 1e9),
        openssl_cycles_per_byte: ossl_cpb,
        ratio_vs_openssl: ossl_cpb.map(|c| c / cpb),
        gcrypt_gbps: gcry_cpb.map(|c| tsc_hz / c / 1e9),
        gcrypt_cycles_per_byte: gcry_cpb,
        ratio_vs_gcrypt: gcry_cpb.map(|c| c / cpb),
        anchor: None,
        quoted: None,
        anchor_cycles_per_byte: None,
        ratio_vs_anchor: None,
        memory_gbps: None,
        constant_time: true,
        key_setup: false,
    })
}

/// The backend column: the GHASH backend (AES runs on the library's default backend;
/// `clmul128+aesni` when the two run stitched in one loop, as on the AES-NI tier).
fn ghash_row_name(g: GhashBackend) -> &'static str {
    match g {
        GhashBackend::Soft => "ghash-soft",
        GhashBackend::Clmul128 => "clmul128",
        GhashBackend::Clmul256 => "clmul256",
        GhashBackend::Clmul512 => "clmul512",
        GhashBackend::Pmull => "pmull",
    }
}
