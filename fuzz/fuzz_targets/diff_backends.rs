//! Differential: every backend this CPU runs against `soft`, the portable reference, on
//! fuzzer-chosen key, IV, data, mode, interleave factor, padding and direction; plus the
//! backend primitives called directly (raw blocks, the CTR keystream from an arbitrary
//! counter, the chain primitive for each feedback, CBC row decryption), and multi-stream
//! runs against one standard run per message.
//!
//! Input: cipher, mode, interleave (mod 41 for cbc/cfb/ofb, else 1), flags (bit 0 padding
//! on ecb/cbc, bit 1 decrypt, bits 2.. the backend), number of multi-stream messages
//! (mod 6), key, counter block, IV (the mode's length), then the data (CFB1: at most 64
//! bytes of it).
#![no_main]

use bitweave::hazmat::Feedback;
use bitweave::mode::multi;
use bitweave::{BlockCipher, Cipher, Direction, Mode, ModeKernels, ModeParams};
use bitweave_fuzz::{cipher_kind, fast_backends, mode, Reader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let kind = cipher_kind(r.u8());
    let mode = mode(r.u8());
    let n_byte = r.u8() as usize;
    let n = if mode.interleavable() { n_byte % 41 } else { 1 };
    let flags = r.u8();
    let messages = r.u8() as usize % 6;
    let padding = mode.whole_blocks() && flags & 1 != 0;
    let dir = if flags & 2 != 0 {
        Direction::Decrypt
    } else {
        Direction::Encrypt
    };
    let backends = fast_backends(kind);
    let backend = backends[(flags >> 2) as usize % backends.len()];
    let bs = kind.block_size();
    let key = r.bytes(kind.key_len());
    let counter = r.bytes(bs);
    let params = ModeParams::new(mode).interleave(n).padding(padding);
    let iv = r.bytes(params.iv_len(bs));
    let input = r.rest();
    // CFB1 costs a block encryption per bit (a whole bitsliced batch on the sliced
    // backends): longer inputs would only slow the fuzzer down.
    let input = if mode == Mode::Cfb1 {
        &input[..input.len().min(64)]
    } else {
        input
    };

    let fast = Cipher::with_backend(kind, &key, Some(backend)).expect("usable backend");
    let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
    let what = format!("{kind}-{mode} x{n} pad={padding} {dir:?}: {backend} vs soft");

    // The mode layer.
    let run = |c: &Cipher| match dir {
        Direction::Encrypt => params.encrypt_all(c, &iv, input),
        Direction::Decrypt => params.decrypt_all(c, &iv, input),
    };
    assert_eq!(run(&fast), run(&soft), "{what}");

    // Raw batches of whole blocks.
    let whole = &input[..input.len() / bs * bs];
    let (mut a, mut b) = (whole.to_vec(), whole.to_vec());
    fast.encrypt_blocks(&mut a);
    soft.encrypt_blocks(&mut b);
    assert_eq!(a, b, "{what}: encrypt_blocks");
    fast.decrypt_blocks(&mut a);
    assert_eq!(
        a, whole,
        "{what}: decrypt_blocks does not invert encrypt_blocks"
    );
    let (mut a, mut b) = (whole.to_vec(), whole.to_vec());
    fast.decrypt_blocks(&mut a);
    soft.decrypt_blocks(&mut b);
    assert_eq!(a, b, "{what}: decrypt_blocks");

    // The CTR keystream from an arbitrary counter (wraps included), any length.
    let (mut ca, mut cb) = (counter.clone(), counter.clone());
    let (mut a, mut b) = (input.to_vec(), input.to_vec());
    fast.ctr_keystream_xor(&mut ca, &mut a);
    soft.ctr_keystream_xor(&mut cb, &mut b);
    assert_eq!((ca, a), (cb, b), "{what}: ctr_keystream_xor");

    // The chain primitive: N chains (the IV row, or the counter block for N = 1 modes)
    // over whole rows.
    let state0 = if iv.len() >= bs {
        iv.clone()
    } else {
        counter.clone()
    };
    let rows = &input[..input.len() / state0.len() * state0.len()];
    for fb in [Feedback::Cbc, Feedback::Cfb, Feedback::Ofb] {
        let (mut sa, mut sb) = (state0.clone(), state0.clone());
        let (mut a, mut b) = (rows.to_vec(), rows.to_vec());
        fast.encrypt_chains(fb, &mut sa, &mut a);
        soft.encrypt_chains(fb, &mut sb, &mut b);
        assert_eq!((sa, a), (sb, b), "{what}: encrypt_chains {fb:?}");
    }
    // CBC row decryption over whole blocks (not necessarily whole rows).
    let (mut pa, mut pb) = (state0.clone(), state0.clone());
    let (mut a, mut b) = (whole.to_vec(), whole.to_vec());
    fast.cbc_decrypt_rows(&mut pa, &mut a);
    soft.cbc_decrypt_rows(&mut pb, &mut b);
    assert_eq!(a, b, "{what}: cbc_decrypt_rows");
    // The contract fixes `prev` afterwards only when the data was whole rows.
    if whole.len().is_multiple_of(state0.len()) {
        assert_eq!(pa, pb, "{what}: cbc_decrypt_rows' last row");
    }

    // Multi-stream: K messages (cut from the data) with K IVs (the counter block, varied)
    // equal K standard runs.
    if let Some(cut) = input.len().checked_div(messages) {
        let one = ModeParams::new(mode).padding(padding);
        let msgs: Vec<&[u8]> = (0..messages)
            .map(|k| {
                // Uneven lengths: message k loses k * 3 bytes of its share.
                let start = k * cut;
                let end = if k + 1 == messages {
                    input.len()
                } else {
                    (start + cut).saturating_sub(k * 3).max(start)
                };
                &input[start..end]
            })
            .collect();
        let ivs: Vec<Vec<u8>> = (0..messages)
            .map(|k| {
                let mut iv = counter.clone();
                iv[0] ^= k as u8;
                if mode.takes_iv() {
                    iv
                } else {
                    Vec::new()
                }
            })
            .collect();
        let iv_refs: Vec<&[u8]> = ivs.iter().map(|v| &v[..]).collect();
        let got = match dir {
            Direction::Encrypt => multi::encrypt(&one, &fast, &iv_refs, &msgs),
            Direction::Decrypt => multi::decrypt(&one, &fast, &iv_refs, &msgs),
        };
        let want: Result<Vec<Vec<u8>>, _> = msgs
            .iter()
            .zip(&iv_refs)
            .map(|(m, iv)| match dir {
                Direction::Encrypt => one.encrypt_all(&soft, iv, m),
                Direction::Decrypt => one.decrypt_all(&soft, iv, m),
            })
            .collect();
        assert_eq!(got, want, "{what}: multi-stream with {messages} messages");
    }
});
