//! Serial chains: the shift-register modes (CFB8, CFB1) and standard CBC/CFB/OFB
//! encryption of one stream with its feedback block in a register, and N interleaved
//! chains in groups of registers.

use core::arch::x86_64::*;

use super::RoundKeys;
use crate::cipher::Feedback;

/// AES encryption rounds 1 to `rounds` of a block whose round-0 XOR is done: the
/// shift-register modes fold their feedback into that XOR.
#[target_feature(enable = "aes,sse2")]
fn rounds_after_first(k: &[__m128i; 15], rounds: usize, s: __m128i) -> __m128i {
    _mm_aesenclast_si128(middle_rounds(k, rounds, s), k[rounds])
}

/// AES encryption rounds 1 to `rounds - 1`: the last is the caller's, with whatever it
/// folds into its key.
#[target_feature(enable = "aes,sse2")]
#[inline]
fn middle_rounds(k: &[__m128i; 15], rounds: usize, mut s: __m128i) -> __m128i {
    for kr in &k[1..rounds] {
        s = _mm_aesenc_si128(s, *kr);
    }
    s
}

/// CFB8 encryption with the shift register in an XMM register: per byte one AES-NI block
/// (the latency chain) and two vector operations after it. The register's byte shift and
/// the plaintext byte do not depend on the keystream, so they are ready (with round key
/// 0) before it: the next input is `(k0 ⊕ shift(r) ⊕ p at byte 15) ⊕ (E(r) moved to byte
/// 15)`, since C = P ⊕ E(r)₀ lands in byte 15.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn cfb8_encrypt_aesni(
    keys: &RoundKeys,
    rounds: usize,
    reg: &mut [u8],
    data: &mut [u8],
) {
    // SAFETY: AES-NI is present and `reg` is one 16-byte block (both checked by the caller,
    // `ModeKernels::cfb8_encrypt`/`cfb1_encrypt` on `AesX86`).
    unsafe {
        let k = keys.v128();
        let mut r = _mm_loadu_si128(reg.as_ptr().cast());
        let mut x = _mm_xor_si128(r, k[0]);
        for b in data.iter_mut() {
            let ks = rounds_after_first(k, rounds, x);
            let p = _mm_slli_si128(_mm_cvtsi32_si128(*b as i32), 15);
            let ready = _mm_xor_si128(_mm_srli_si128(r, 1), p);
            r = _mm_xor_si128(ready, _mm_slli_si128(ks, 15));
            x = _mm_xor_si128(_mm_xor_si128(ready, k[0]), _mm_slli_si128(ks, 15));
            *b ^= _mm_cvtsi128_si32(ks) as u8;
        }
        _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
    }
}

/// CFB1 encryption with the shift register in an XMM register, in the block's byte
/// order: per bit one AES-NI block (the latency chain) and four vector operations after
/// it. The register's one-bit shift (each byte doubled and topped up with the top bit of
/// the byte after it) and the plaintext bit do not depend on the keystream, so they are
/// ready (with round key 0) before it; after it, only the keystream's first bit is moved
/// to the register's last bit.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn cfb1_encrypt_aesni(
    keys: &RoundKeys,
    rounds: usize,
    reg: &mut [u8],
    data: &mut [u8],
) {
    // SAFETY: AES-NI is present and `reg` is one 16-byte block (both checked by the caller,
    // `ModeKernels::cfb8_encrypt`/`cfb1_encrypt` on `AesX86`).
    unsafe {
        let k = keys.v128();
        let ones = _mm_set1_epi8(1);
        let last_bit = _mm_slli_si128(_mm_cvtsi32_si128(1), 15);
        let mut r = _mm_loadu_si128(reg.as_ptr().cast());
        let mut x = _mm_xor_si128(r, k[0]);
        for b in data.iter_mut() {
            let mut out = 0u8;
            for bit in (0..8).rev() {
                let ks = rounds_after_first(k, rounds, x);
                let p = (*b >> bit) & 1;
                let shifted = _mm_or_si128(
                    _mm_add_epi8(r, r),
                    _mm_and_si128(_mm_srli_epi16(_mm_srli_si128(r, 1), 7), ones),
                );
                let ready = _mm_xor_si128(shifted, _mm_slli_si128(_mm_cvtsi32_si128(p as i32), 15));
                // The keystream's top bit (bit 7 of byte 0) to bit 0 of byte 15.
                let c = _mm_and_si128(_mm_slli_si128(_mm_srli_epi64(ks, 7), 15), last_bit);
                r = _mm_xor_si128(ready, c);
                x = _mm_xor_si128(_mm_xor_si128(ready, k[0]), c);
                out |= (p ^ ((_mm_cvtsi128_si32(ks) as u8) >> 7)) << bit;
            }
            *b = out;
        }
        _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
    }
}

/// One serial chain with its feedback block held in a register for the whole run.
///
/// The chain's critical path is exactly the AES instructions: whatever the next block
/// XORs into the chain (the next plaintext and round key 0 for CBC, this plaintext and
/// key 0 for CFB, key 0 for OFB) is folded into the last round's key, off the path,
/// because `AESENCLAST(x, k ⊕ v) = AESENCLAST(x, k) ⊕ v`; the output block is recovered
/// with one more XOR that nothing waits for. The last block folds nothing in: its
/// AESENCLAST gives the feedback block the state keeps (for CFB with the plaintext folded
/// in), which the next call's first round waits on.
///
/// # Safety
/// The CPU has AES-NI and `state` is one 16-byte block.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn single_chain(
    keys: &RoundKeys,
    rounds: usize,
    fb: Feedback,
    state: &mut [u8],
    data: &mut [u8],
) {
    // The round count a constant, so the rounds unroll: no round loop and its set-up per
    // block, which on a one-block call was a third of the call's instructions.
    // SAFETY: this fn's contract.
    unsafe {
        match rounds {
            10 => single_chain_fixed::<10>(keys, fb, state, data),
            12 => single_chain_fixed::<12>(keys, fb, state, data),
            _ => single_chain_fixed::<14>(keys, fb, state, data),
        }
    }
}

/// [`single_chain`] with `ROUNDS` rounds.
///
/// # Safety
/// As [`single_chain`].
#[target_feature(enable = "aes,sse2")]
#[inline]
unsafe fn single_chain_fixed<const ROUNDS: usize>(
    keys: &RoundKeys,
    fb: Feedback,
    state: &mut [u8],
    data: &mut [u8],
) {
    // SAFETY: AES-NI is present and `state` is one 16-byte block (this fn's contract);
    // block `i < n = data.len() / 16` is read and written at `16 * i`.
    unsafe {
        let n = data.len() / 16;
        if n == 0 {
            return;
        }
        let k = keys.v128();
        let (k0, klast) = (k[0], k[ROUNDS]);
        let ptr = data.as_mut_ptr();
        let load = |i: usize| _mm_loadu_si128(ptr.add(16 * i).cast());
        let s = _mm_loadu_si128(state.as_ptr().cast());
        // x: the next block's state after AddRoundKey 0.
        let mut x = match fb {
            Feedback::Cbc => _mm_xor_si128(_mm_xor_si128(s, load(0)), k0),
            Feedback::Cfb | Feedback::Ofb => _mm_xor_si128(s, k0),
        };
        for i in 0..n - 1 {
            x = middle_rounds(k, ROUNDS, x);
            let carry = match fb {
                Feedback::Cbc => _mm_xor_si128(load(i + 1), k0),
                Feedback::Cfb => _mm_xor_si128(load(i), k0),
                Feedback::Ofb => k0,
            };
            let t = _mm_aesenclast_si128(x, _mm_xor_si128(klast, carry));
            let out = match fb {
                Feedback::Cbc => _mm_xor_si128(t, carry),
                Feedback::Cfb => _mm_xor_si128(t, k0),
                Feedback::Ofb => _mm_xor_si128(_mm_xor_si128(t, k0), load(i)),
            };
            _mm_storeu_si128(ptr.add(16 * i).cast(), out);
            x = t;
        }
        // The last block: its AESENCLAST gives the feedback block itself (nothing comes
        // next to fold in), so the state's store, which the next call's first round waits
        // on, follows it directly; folded as above, an XOR came between.
        let last = n - 1;
        x = middle_rounds(k, ROUNDS, x);
        let (out, feedback) = match fb {
            Feedback::Cbc => {
                let c = _mm_aesenclast_si128(x, klast);
                (c, c)
            }
            Feedback::Cfb => {
                let c = _mm_aesenclast_si128(x, _mm_xor_si128(klast, load(last)));
                (c, c)
            }
            Feedback::Ofb => {
                let o = _mm_aesenclast_si128(x, klast);
                (_mm_xor_si128(o, load(last)), o)
            }
        };
        _mm_storeu_si128(ptr.add(16 * last).cast(), out);
        _mm_storeu_si128(state.as_mut_ptr().cast(), feedback);
    }
}

/// Defines a multi-chain function: N chains (N a multiple of the register's lanes) in
/// groups of up to eight registers; each group's feedback blocks stay in registers while
/// it runs down all rows (a group's chains depend only on the same columns of the row
/// before), so eight independent registers hide the AES latency as in ECB.
macro_rules! chains_fn {
    ($name:ident, $features:literal, $vec:ty, $lanes:literal, $max_group:literal,
     $load:ident, $store:ident, $keys:expr, $xor:ident, $enc:ident, $enclast:ident) => {
        /// Returns false (doing nothing) when N is not a multiple of the lanes. `ahead`
        /// are the rows that follow (the next slab), only prefetched.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(
            keys: &RoundKeys,
            rounds: usize,
            fb: Feedback,
            state: &mut [u8],
            rows: &mut [&mut [u8]],
            ahead: &[&mut [u8]],
        ) -> bool {
            const REG: usize = 16 * $lanes;
            let row_len = state.len();
            if !row_len.is_multiple_of(REG) {
                return false;
            }
            assert!(rows.iter().all(|r| r.len() == row_len), "whole rows only");
            let k = $keys(keys);
            let regs = row_len / REG;
            let mut g = 0;
            while g < regs {
                // Up to $max_group registers per group (as many as fit in the register
                // file beside the keys), the round count a constant for full groups.
                let r = if regs - g >= $max_group {
                    $max_group
                } else {
                    (regs - g).min(8)
                };
                let off = g * REG;
                // SAFETY: this fn's features are the groups'; registers `g..g + r` lie within
                // `state` and every row (`g + r <= regs`, rows as long as `state`, asserted).
                unsafe {
                    let st = state.as_mut_ptr().add(off);
                    match (r, rounds) {
                        (16, 10) => group::<16, 10>(&k, fb, st, rows, ahead, off),
                        (16, 12) => group::<16, 12>(&k, fb, st, rows, ahead, off),
                        (16, _) => group::<16, 14>(&k, fb, st, rows, ahead, off),
                        (8, 10) => group::<8, 10>(&k, fb, st, rows, ahead, off),
                        (8, 12) => group::<8, 12>(&k, fb, st, rows, ahead, off),
                        (8, _) => group::<8, 14>(&k, fb, st, rows, ahead, off),
                        (7, _) => group_any::<7>(&k, rounds, fb, st, rows, ahead, off),
                        (6, _) => group_any::<6>(&k, rounds, fb, st, rows, ahead, off),
                        (5, _) => group_any::<5>(&k, rounds, fb, st, rows, ahead, off),
                        (4, _) => group_any::<4>(&k, rounds, fb, st, rows, ahead, off),
                        (3, _) => group_any::<3>(&k, rounds, fb, st, rows, ahead, off),
                        (2, _) => group_any::<2>(&k, rounds, fb, st, rows, ahead, off),
                        _ => group_any::<1>(&k, rounds, fb, st, rows, ahead, off),
                    }
                }
                g += r;
            }
            return true;

            /// A partial group (fewer than eight registers), any round count.
            #[target_feature(enable = $features)]
            unsafe fn group_any<const R: usize>(
                k: &[$vec; 15],
                rounds: usize,
                fb: Feedback,
                st: *mut u8,
                rows: &mut [&mut [u8]],
                ahead: &[&mut [u8]],
                off: usize,
            ) {
                // SAFETY: `group`'s contract is this fn's, passed on unchanged.
                unsafe {
                    match rounds {
                        10 => group::<R, 10>(k, fb, st, rows, ahead, off),
                        12 => group::<R, 12>(k, fb, st, rows, ahead, off),
                        _ => group::<R, 14>(k, fb, st, rows, ahead, off),
                    }
                }
            }

            /// `R` registers of chains starting `off` bytes into each row, `NR` rounds.
            #[target_feature(enable = $features)]
            #[inline]
            unsafe fn group<const R: usize, const NR: usize>(
                k: &[$vec; 15],
                fb: Feedback,
                st: *mut u8,
                rows: &mut [&mut [u8]],
                ahead: &[&mut [u8]],
                off: usize,
            ) {
                // SAFETY: the features are present (the caller's contract). `st` points at
                // `R` registers of `state` and every row has at least `off + R * REG` bytes
                // (the caller's group; rows as long as `state`, asserted there). The
                // prefetches into `ahead` use wrapping arithmetic: a prefetch never faults.
                unsafe {
                    // Nothing but AES instructions on the chains' critical path: whatever the
                    // next row's first round XORs in (round key 0, and for CBC the next
                    // plaintext) is folded into this row's last round key, so the last round
                    // yields the next row's round-1 input directly; the output block is
                    // recovered off the path with one XOR (`AESENCLAST(x, k ⊕ v) =
                    // AESENCLAST(x, k) ⊕ v`). Only the R chain registers stay live across
                    // the rounds; everything else is loaded when the last round needs it.
                    let n = rows.len();
                    let row_len = rows.first().map_or(1, |r| r.len());
                    let mut x: [$vec; R] = core::array::from_fn(|i| {
                        let s = $xor($load(st.add(i * REG).cast()), k[0]);
                        match fb {
                            Feedback::Cbc if n > 0 => {
                                $xor(s, $load(rows[0].as_ptr().add(off + i * REG).cast()))
                            }
                            _ => s,
                        }
                    });
                    for j in 0..n {
                        for kr in &k[1..NR] {
                            x = x.map(|v| $enc(v, *kr));
                        }
                        let p = rows[j].as_mut_ptr().add(off);
                        let next = rows.get(j + 1).map(|r| r.as_ptr().add(off));
                        // The next slab, prefetched at the pace of the walk (the walk's row
                        // stride is a pattern the hardware prefetchers do not follow). With
                        // eight rows or more per slab, in memory order: the groups pass over
                        // a slab register group by register group, so step (this group, row
                        // j) fetches the R·REG bytes at the same position of the next slab
                        // read as one stream. With fewer (rows longer than 32 KiB), each
                        // group fetches its own blocks of the next slab, row for row. Measured
                        // on 64 MiB, one thread, memory order against row for row: 128 chains
                        // 1.08-1.19x, 1024 chains 1.04-1.07x, 2048 equal, 4096 0.85-0.90x
                        // (hence the rule). Row for row in turn had beaten a fixed 4 or 8
                        // rows ahead by up to 1.4x (session 5).
                        let (ahead_row, col) = if n >= 8 {
                            let lin = off * n + j * R * REG;
                            (lin / row_len, lin % row_len)
                        } else {
                            (j, off)
                        };
                        if let Some(r) = ahead.get(ahead_row) {
                            // R·REG/64 + 1 lines from the one holding the first byte: the last
                            // is where the blocks spill over when rows do not start on a line
                            // (malloc gives large buffers 16-byte alignment). A line missed
                            // on every row halved the throughput with 128 chains on 64 MiB. A
                            // fixed count keeps it unrolled.
                            let q = r.as_ptr().wrapping_add(col);
                            let first = q.wrapping_sub(q as usize % 64);
                            for i in 0..=R * REG / 64 {
                                _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(64 * i).cast());
                            }
                        }
                        for i in 0..R {
                            let at = p.add(i * REG);
                            // t: CBC k0 ⊕ P_{j+1} (k0 after the last row), CFB k0 ⊕ P_j, OFB
                            // k0. The last round then gives y = (its usual output) ⊕ t, the
                            // next row's round-1 input.
                            let t = match (fb, next) {
                                (Feedback::Cbc, Some(q)) => {
                                    $xor($load(q.add(i * REG).cast()), k[0])
                                }
                                (Feedback::Cfb, _) => $xor($load(at.cast()), k[0]),
                                _ => k[0],
                            };
                            x[i] = $enclast(x[i], $xor(k[NR], t));
                            // CBC: C = y ⊕ t; CFB: C = y ⊕ k0; OFB: P ⊕ keystream (y ⊕ k0).
                            let out = match fb {
                                Feedback::Cbc => $xor(x[i], t),
                                Feedback::Cfb => $xor(x[i], k[0]),
                                Feedback::Ofb => $xor($xor(x[i], k[0]), $load(at.cast())),
                            };
                            $store(at.cast(), out);
                        }
                    }
                    // The new feedback: the last ciphertext row (CBC, CFB) or the keystream.
                    for i in 0..R {
                        let v = match (fb, rows.last()) {
                            (Feedback::Cbc | Feedback::Cfb, Some(r)) => {
                                $load(r.as_ptr().add(off + i * REG).cast())
                            }
                            (Feedback::Ofb, Some(_)) => $xor(x[i], k[0]),
                            (_, None) => continue,
                        };
                        $store(st.add(i * REG).cast(), v);
                    }
                }
            }
        }
    };
}

chains_fn!(
    chains_aesni,
    "aes,sse2",
    __m128i,
    1,
    8,
    _mm_loadu_si128,
    _mm_storeu_si128,
    RoundKeys::v128,
    _mm_xor_si128,
    _mm_aesenc_si128,
    _mm_aesenclast_si128
);
chains_fn!(
    chains_vaes256,
    "aes,sse2,avx2,vaes",
    __m256i,
    2,
    8,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    RoundKeys::v256,
    _mm256_xor_si256,
    _mm256_aesenc_epi128,
    _mm256_aesenclast_epi128
);
chains_fn!(
    chains_vaes512,
    "aes,sse2,avx512f,vaes",
    __m512i,
    4,
    16,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    |k: &RoundKeys| k.v128().map(|x| _mm512_broadcast_i32x4(x)),
    _mm512_xor_si512,
    _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128
);
