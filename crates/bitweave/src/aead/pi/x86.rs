//! The x86 backends' entries: their CPU checks, the lane kernel behind its check, and
//! each word size's whole-step kernels ([`WideWord`]: the framework is [`super::wide`],
//! its two instances [`super::avx2`] and [`super::avx512`]).
//!
//! AVX2 runs [`super::wide::pi_states`] on ymm registers (`avx2::pi_rows`); the AVX-512
//! backend uses it too for its lanes (its own strength is the whole-step kernel,
//! [`super::avx512`]). An AVX-512 lane kernel — the portable word-sliced π inlined into a
//! `#[target_feature]` function for LLVM to vectorise — was removed: on AMD Zen 4
//! (2026-11-26) it ran 256-768 B messages 1.5-2.5× slower than the AVX2 one and many
//! messages at once no faster.
#![allow(unsafe_code)]

use super::engine::Blocks;
use super::lanes::Soa;
use super::wide::{Kernel, Offsets};
use super::word::Word;

/// Whether this CPU runs the AVX2 kernels (under the tier cap, see [`crate::cpu`]).
pub fn has_avx2() -> bool {
    super::avx2::available()
}

/// Whether this CPU runs the AVX-512 kernel (see [`super::avx512::FEATURES`]).
pub fn has_avx512() -> bool {
    super::avx512::available()
}

/// A word size with a whole-step kernel on every x86 vector tier (all three have one):
/// each kernel's safe entry and its batch width in blocks.
pub trait WideWord: Offsets {
    const AVX512: (Blocks<Self>, usize);
    const AVX2: (Blocks<Self>, usize);
}

macro_rules! wide_word {
    ($($t:ty),*) => {$(
        impl WideWord for $t {
            const AVX512: (Blocks<$t>, usize) = (
                super::avx512::run_blocks::<$t>,
                <super::avx512::Avx512 as Kernel<$t>>::L,
            );
            const AVX2: (Blocks<$t>, usize) = (
                super::avx2::run_blocks::<$t>,
                <super::avx2::Avx2 as Kernel<$t>>::L,
            );
        }
    )*};
}
wide_word!(u16, u32, u64);

/// π on `L` lanes with AVX2. Panics if the CPU lacks AVX2 (the backend selection never
/// hands this kernel out in that case).
pub fn pi_avx2<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    // The word type picks the instance (the kernel's register lanes depend on it).
    if let Some(s) = same::<W, u64, L, 4>(s) {
        super::avx2::pi_rows(s)
    } else if let Some(s) = same::<W, u32, L, 8>(s) {
        super::avx2::pi_rows(s)
    } else if let Some(s) = same::<W, u16, L, 16>(s) {
        super::avx2::pi_rows(s)
    } else {
        unreachable!("the AVX2 lane kernel takes one ymm register per state word")
    }
}

/// `s` as `Soa<T, M>` when that is its type.
fn same<W: Word, T: Word, const L: usize, const M: usize>(
    s: &mut Soa<W, L>,
) -> Option<&mut Soa<T, M>> {
    let same = core::any::TypeId::of::<W>() == core::any::TypeId::of::<T>() && L == M;
    // SAFETY: W is T and L is M, so the two types are one type.
    same.then(|| unsafe { &mut *(s as *mut Soa<W, L>).cast::<Soa<T, M>>() })
}

#[cfg(test)]
mod tests {
    use super::super::lanes::pi_single;
    use super::super::layout::{inject, rate_bytes, store_words, RATE_WORDS};
    use super::super::{avx2, avx512};
    use super::*;
    use crate::aead::pi::engine::{ABSORB, DECRYPT, ENCRYPT};

    /// The same steps one block at a time with the scalar π.
    fn scalar<W: Word>(mode: u8, cis: &[W; 16], ctr: u64, data: &[u8], out: &mut [u8]) -> [W; 8] {
        let rb = rate_bytes::<W>();
        let mut tag = [W::default(); 8];
        for (b, blk) in data.chunks(rb).enumerate() {
            let mut s = *cis;
            inject(&mut s, ctr.wrapping_add(b as u64));
            pi_single(&mut s);
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                let d = W::load_le(&blk[k * W::BYTES..]);
                let o = s[i].xor(d);
                if mode != ABSORB {
                    o.store_le(&mut out[b * rb + k * W::BYTES..]);
                }
                s[i] = if mode == DECRYPT { d } else { o };
            }
            pi_single(&mut s);
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                tag[k] = tag[k].add(s[i]);
            }
        }
        tag
    }

    /// A kernel (`run`, batch width `width` blocks) against the scalar steps, on counters
    /// whose low limbs (and higher ones) wrap inside a batch.
    fn check<W: Word>(name: &str, (run, width): (Blocks<W>, usize)) {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let ctrs = [
            0,
            0xFFF0,
            0xFFFF_FFF5,
            0x0000_FFFF_FFFF_FFF9,
            0xFFFF_FFFF_FFFF_FFF0,
            next(),
        ];
        let batch = width * rate_bytes::<W>();
        for ctr in ctrs {
            for mode in [ABSORB, ENCRYPT, DECRYPT] {
                let cis: [W; 16] = core::array::from_fn(|_| W::limb(next(), 0));
                let data: Vec<u8> = (0..3 * batch).map(|_| next() as u8).collect();
                let (mut got, mut want) = (vec![0u8; data.len()], vec![0u8; data.len()]);
                let mut tag = [W::default(); 8];
                run(mode, &cis, ctr, &data, &mut got, &mut tag);
                let want_tag = scalar(mode, &cis, ctr, &data, &mut want);
                let what = format!("{name} w{} mode {mode} ctr {ctr:#x}", 8 * W::BYTES);
                assert_eq!(got, want, "{what}");
                let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
                store_words(&tag, &mut a[..rate_bytes::<W>()]);
                store_words(&want_tag, &mut b[..rate_bytes::<W>()]);
                assert_eq!(a, b, "tag {what}");
            }
        }
    }

    fn check_all<W: WideWord>() {
        if avx2::available() {
            check::<W>("avx2", W::AVX2);
        } else {
            eprintln!("skipped: π whole-step kernel on avx2 (CPU lacks AVX2)");
        }
        if avx512::available() {
            check::<W>("avx512", W::AVX512);
        } else {
            eprintln!("skipped: π whole-step kernel on avx512 (CPU lacks AVX-512 F/BW/VL/VBMI2)");
        }
    }

    #[test]
    fn blocks_equal_scalar_steps() {
        check_all::<u16>();
        check_all::<u32>();
        check_all::<u64>();
    }
}
