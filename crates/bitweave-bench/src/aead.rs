//! One π-Cipher row: one message per call, or several through the multi-stream calls.
//! No peer implements π-Cipher; the designers' fastest code is a quoted anchor.

use std::time::Duration;

use anyhow::Result;
use bitweave::aead::{Ciphertext, Message, PiBackend, PiCipher, PiVariant};
use bitweave::Direction;

use crate::block::Row;
use crate::clock;

/// The designers' fastest conforming π-Cipher code (SUPERCOP `goptv`, -O3 -march=native),
/// cycles/byte by word size: the figures issue 6 quotes for this machine. The anchor is
/// quoted, not measured in this process (its code is not part of bitweave).
const GOPTV_QUOTED: [(usize, f64); 3] = [(16, 17.0), (32, 5.1), (64, 2.8)];

/// One π-Cipher row: `messages` messages of `size` bytes each (no AD) in one multi-stream
/// call (`encrypt_many_into`/`decrypt_many_into`; one message is a call of one).
pub fn measure_aead(
    v: PiVariant,
    backend: PiBackend,
    dir: Direction,
    messages: usize,
    size: usize,
    budget: Duration,
    tsc_hz: f64,
) -> Result<Row> {
    let key: Vec<u8> = (0..v.key_len()).map(|i| i as u8 ^ 0x42).collect();
    let pi = PiCipher::with_backend(v, &key, Some(backend.name()))?;
    let npubs: Vec<Vec<u8>> = (0..messages)
        .map(|m| (0..v.npub_len()).map(|i| (i + m) as u8).collect())
        .collect();
    let nsec = vec![7u8; v.nsec_len()];
    let msgs: Vec<Vec<u8>> = (0..messages)
        .map(|m| (0..size).map(|i| (i * 13 + m) as u8).collect())
        .collect();
    let plain: Vec<Message> = (0..messages)
        .map(|m| Message {
            npub: &npubs[m],
            nsec: Some(&nsec),
            ad: &[],
            plaintext: &msgs[m],
        })
        .collect();
    let sealed = pi.encrypt_many(&plain)?;
    let cts: Vec<Ciphertext> = (0..messages)
        .map(|m| Ciphertext {
            npub: &npubs[m],
            ad: &[],
            ciphertext: &sealed[m],
            with_nsec: true,
        })
        .collect();
    // Outputs go to buffers allocated once and reused, as `openssl speed` reuses its
    // buffers: fresh outputs per call measured glibc instead (freeing 16 outputs of 16 KiB
    // at once trims the heap, and the next call faults every page back in: π32 16 KiB × 16
    // read 1.47 TSC c/B, against 0.96 here; Intel, 2026-12-01).
    let lens: Vec<usize> = match dir {
        Direction::Encrypt => plain.iter().map(|m| pi.sealed_len(m)).collect(),
        Direction::Decrypt => cts.iter().map(|c| pi.opened_len(c)).collect(),
    };
    let mut bufs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0; n]).collect();
    let mut call = || {
        let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
        match dir {
            Direction::Encrypt => pi.encrypt_many_into(&plain, &mut outs).unwrap(),
            Direction::Decrypt => {
                for r in pi.decrypt_many_into(&cts, &mut outs).unwrap() {
                    r.unwrap();
                }
            }
        }
        std::hint::black_box(&mut outs);
    };
    let best = (0..3)
        .map(|_| clock::cycles_per_call(&mut call, budget))
        .fold(f64::MAX, f64::min);
    let bytes = messages * size;
    let cpb = best / bytes as f64;
    let anchor = GOPTV_QUOTED
        .iter()
        .find(|(w, _)| *w == v.word_bits())
        .map(|&(_, c)| c);
    Ok(Row {
        cipher: v.name().to_string(),
        direction: dir.name(),
        backend: backend.name(),
        threads: 1,
        interleave: messages,
        bytes,
        gbps: tsc_hz / cpb / 1e9,
        cycles_per_byte: cpb,
        openssl_gbps: None,
        openssl_cycles_per_byte: None,
        ratio_vs_openssl: None,
        gcrypt_gbps: None,
        gcrypt_cycles_per_byte: None,
        ratio_vs_gcrypt: None,
        anchor: anchor.map(|_| "goptv (quoted)"),
        quoted: anchor.map(|_| true),
        anchor_cycles_per_byte: anchor,
        ratio_vs_anchor: anchor.map(|a| a / cpb),
        memory_gbps: None,
        constant_time: true,
        key_setup: false,
    })
}
