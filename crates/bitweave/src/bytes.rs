//! Byte utilities every layer uses: wiping secrets and XORing runs of bytes. The bottom
//! layer of the library (it asks only [`crate::cpu`] which vector width to use).

/// Clears a buffer of secrets (bytes, words, round-key arrays) at memset speed:
/// `zeroize`'s volatile stores cost about a cycle per element — per byte for byte arrays,
/// and a `Vec`'s whole allocation byte by byte — which would dominate a fast backend's
/// per-call work and its key set-up; `black_box` keeps the compiler from dropping the
/// fill as a dead store.
pub(crate) fn wipe<T: Copy + Default>(buf: &mut [T]) {
    buf.fill(T::default());
    std::hint::black_box(buf);
}

/// Wipes a vector's whole allocation (its bytes and its spare capacity) and empties it,
/// keeping the allocation. A vector that never allocated is left alone: `zeroize` would
/// `memset` zero bytes at its dangling pointer, and glibc's AVX-512 `memset` does that
/// with a masked store to an unmapped page, which costs about 160 cycles on AMD Zen 4 (a
/// fault-suppression assist) — two thirds of dropping a `Crypter` whose pending buffer was
/// never used.
pub(crate) fn wipe_vec(v: &mut Vec<u8>) {
    if v.capacity() == 0 {
        return;
    }
    v.resize(v.capacity(), 0);
    wipe(v);
    v.clear();
}

/// Secret bytes (a decrypted plaintext, a secret message number) whose whole allocation
/// is wiped at memset speed when they drop, the fill kept by `black_box`.
/// `zeroize::Zeroizing<Vec<u8>>` wipes a byte a cycle: on π-Cipher decryption that was
/// as much time again as the decryption itself (π64, 16 KiB, `avx512`: 1.64 TSC c/B
/// against 1.2 for encryption; Xeon family 6 model 207). Reads and writes as the `Vec`
/// it holds.
#[derive(Default)]
pub struct SecretVec(Vec<u8>);

impl SecretVec {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        SecretVec(vec![0; len])
    }
}

impl From<Vec<u8>> for SecretVec {
    fn from(v: Vec<u8>) -> Self {
        SecretVec(v)
    }
}

impl std::ops::Deref for SecretVec {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl std::ops::DerefMut for SecretVec {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl Drop for SecretVec {
    fn drop(&mut self) {
        wipe_vec(&mut self.0);
    }
}

/// The length only: the bytes are secret.
impl std::fmt::Debug for SecretVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{} secret bytes>", self.0.len())
    }
}

/// The largest scratch buffer [`with_scratch`] keeps on the stack.
const STACK_SCRATCH: usize = 1024;

/// Scratch up to this size comes from a smaller stack array, so a call of a few blocks
/// does not zero a whole [`STACK_SCRATCH`] first: that cost SEED's one-block CTR, CBC and
/// CFB decryption ~25 TSC cycles a call, 34.8 → 33.2 c/B for 16 bytes (Xeon family 6
/// model 207, `gfni128`, best of three alternating runs; ECB, which needs no scratch,
/// reads 31.7).
const SMALL_SCRATCH: usize = 64;

/// Runs `f` on `len` zero bytes of scratch space, wiped afterwards (callers keep
/// keystream in it): on the stack up to [`STACK_SCRATCH`] bytes, so a short call pays no
/// allocation, else on the heap. 3DES-CBC decryption of 24 bytes spent ~300 of its
/// ~10,000 instructions in `malloc` and `free` for an 8 KiB slab buffer.
pub(crate) fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut small: [u8; SMALL_SCRATCH];
    let mut stack: [u8; STACK_SCRATCH];
    let mut heap = Vec::new();
    let buf = if len <= SMALL_SCRATCH {
        small = [0; SMALL_SCRATCH];
        &mut small[..len]
    } else if len <= STACK_SCRATCH {
        stack = [0; STACK_SCRATCH];
        &mut stack[..len]
    } else {
        heap.resize(len, 0);
        &mut heap[..]
    };
    let r = f(buf);
    wipe(buf);
    r
}

/// Bytes per `memcpy` in [`copy`] and [`extend`]: under the 4 KiB from which glibc's
/// x86 `memcpy` (AVX2 and AVX-512 variants) switches to `rep movsb`.
const COPY_PIECE: usize = 2048;

/// `dst.copy_from_slice(src)` in pieces of 2 KiB. glibc's `rep movsb` copy runs ~35×
/// slower on AMD Zen 3 when the destination starts a few bytes past the source modulo
/// 4 KiB (4-28 bytes measured; 16 KiB: 0.79 against 0.024 TSC c/B; glibc 2.36), and that
/// is where two same-sized heap buffers allocated one after the other sit: a 16 KiB `Vec`
/// and the next are 16,400 bytes apart. The pieces take its vector loop, which measured
/// at most 0.034 c/B at every 16-byte offset and is as fast elsewhere.
pub fn copy(dst: &mut [u8], src: &[u8]) {
    assert_eq!(
        dst.len(),
        src.len(),
        "copy between buffers of unequal length"
    );
    for (d, s) in dst.chunks_mut(COPY_PIECE).zip(src.chunks(COPY_PIECE)) {
        d.copy_from_slice(s);
    }
}

/// `out.extend_from_slice(src)` by [`copy`]'s pieces (one reservation first).
pub(crate) fn extend(out: &mut Vec<u8>, src: &[u8]) {
    out.reserve(src.len());
    for piece in src.chunks(COPY_PIECE) {
        out.extend_from_slice(piece);
    }
}

/// `dst ^= src` over the length of `dst` (`src` at least as long).
pub(crate) fn xor(dst: &mut [u8], src: &[u8]) {
    if dst.len() <= 32 {
        return xor_short(dst, &src[..dst.len()]);
    }
    #[cfg(target_arch = "x86_64")]
    x86::xor_simd(dst, src);
    #[cfg(not(target_arch = "x86_64"))]
    xor_pieces(dst, src);
}

/// [`xor`] in pieces of [`xor_short`]'s size: the vector loops' remainders (`src` at
/// least as long as `dst`).
fn xor_pieces(dst: &mut [u8], src: &[u8]) {
    let src = &src[..dst.len()];
    for (d, s) in dst.chunks_mut(32).zip(src.chunks(32)) {
        xor_short(d, s);
    }
}

/// `dst ^= src` for at most 32 bytes (`src` as long), in at most two overlapping words
/// of the widest size that fits: a stream mode's left-over keystream is a few bytes per
/// call, where a byte loop costs a cycle or two per byte (both words are read before
/// either is written, so the overlap gets the same bytes twice).
#[inline]
fn xor_short(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    assert!(n <= 32 && src.len() == n, "at most 32 bytes, both as long");
    macro_rules! words {
        ($t:ty, $w:expr) => {{
            let word =
                |b: &[u8], at: usize| <$t>::from_ne_bytes(b[at..at + $w].try_into().unwrap());
            let (a, b) = (
                word(dst, 0) ^ word(src, 0),
                word(dst, n - $w) ^ word(src, n - $w),
            );
            dst[..$w].copy_from_slice(&a.to_ne_bytes());
            dst[n - $w..].copy_from_slice(&b.to_ne_bytes());
        }};
    }
    match n {
        16.. => words!(u128, 16),
        8.. => words!(u64, 8),
        4.. => words!(u32, 4),
        2.. => words!(u16, 2),
        1 => dst[0] ^= src[0],
        _ => {}
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    use crate::cpu::{self, Feature};

    /// [`xor`](super::xor) with the widest vectors this CPU has: the modes' XORs around a
    /// batch (CBC/CFB/OFB rows, CTR keystream, CBC decryption) cost a pass over memory
    /// each, which at baseline SSE2 width is a visible share of a fast backend's time.
    pub(super) fn xor_simd(dst: &mut [u8], src: &[u8]) {
        let src = &src[..dst.len()];
        if cpu::has(Feature::Avx512f) {
            // SAFETY: AVX-512F detected just above.
            unsafe { xor_avx512(dst, src) }
        } else if cpu::has(Feature::Avx2) {
            // SAFETY: AVX2 detected just above.
            unsafe { xor_avx2(dst, src) }
        } else {
            super::xor_pieces(dst, src);
        }
    }

    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn xor_avx512(dst: &mut [u8], src: &[u8]) {
        // SAFETY: AVX-512F is present (the caller checked); each load and store is one whole
        // 64-byte chunk of `dst` or `src`.
        unsafe {
            let mut d = dst.chunks_exact_mut(64);
            let mut s = src.chunks_exact(64);
            for (a, b) in (&mut d).zip(&mut s) {
                let x = _mm512_loadu_si512(a.as_ptr().cast());
                let y = _mm512_loadu_si512(b.as_ptr().cast());
                _mm512_storeu_si512(a.as_mut_ptr().cast(), _mm512_xor_si512(x, y));
            }
            super::xor_pieces(d.into_remainder(), s.remainder());
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn xor_avx2(dst: &mut [u8], src: &[u8]) {
        // SAFETY: AVX2 is present (the caller checked); each load and store is one whole 32-byte
        // chunk of `dst` or `src`.
        unsafe {
            let mut d = dst.chunks_exact_mut(32);
            let mut s = src.chunks_exact(32);
            for (a, b) in (&mut d).zip(&mut s) {
                let x = _mm256_loadu_si256(a.as_ptr().cast());
                let y = _mm256_loadu_si256(b.as_ptr().cast());
                _mm256_storeu_si256(a.as_mut_ptr().cast(), _mm256_xor_si256(x, y));
            }
            super::xor_pieces(d.into_remainder(), s.remainder());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both homes of the scratch buffer (stack up to `STACK_SCRATCH`, heap beyond) hand
    /// out exactly `len` zero bytes and pass the closure's result back.
    #[test]
    fn scratch_is_zeroed_and_exactly_as_long() {
        for len in [0, 1, 24, STACK_SCRATCH, STACK_SCRATCH + 1, 9000] {
            let (got, zero) = with_scratch(len, |b| {
                let zero = b.iter().all(|&x| x == 0);
                b.fill(0xa5);
                (b.len(), zero)
            });
            assert_eq!((got, zero), (len, true), "scratch of {len} bytes");
        }
    }

    /// `xor` and its pieces read only the first `dst.len()` bytes of a longer source (CFB
    /// decryption rows pass a whole chain buffer).
    #[test]
    fn xors_take_a_longer_source() {
        for n in [0, 5, 31, 33, 70, 200] {
            let src: Vec<u8> = (0..n as u32 + 40).map(|i| (i * 7) as u8).collect();
            let mut got: Vec<u8> = (0..n as u32).map(|i| (i * 3) as u8).collect();
            let want: Vec<u8> = got.iter().zip(&src).map(|(d, s)| d ^ s).collect();
            xor(&mut got, &src);
            assert_eq!(got, want, "{n} bytes");
            let mut pieces: Vec<u8> = (0..n as u32).map(|i| (i * 3) as u8).collect();
            xor_pieces(&mut pieces, &src);
            assert_eq!(pieces, want, "{n} bytes in pieces");
        }
    }

    #[test]
    fn short_xors_equal_the_byte_loop() {
        for n in 0..=32 {
            let src: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(77) ^ 0xa5).collect();
            let mut got: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(31) ^ 3).collect();
            let want: Vec<u8> = got.iter().zip(&src).map(|(d, s)| d ^ s).collect();
            xor_short(&mut got, &src);
            assert_eq!(got, want, "{n} bytes");
        }
    }

    /// The piecewise copies equal `copy_from_slice` / `extend_from_slice` at lengths
    /// around the piece size, after what `out` already held.
    #[test]
    fn piecewise_copies_equal_the_plain_ones() {
        let src: Vec<u8> = (0..3 * COPY_PIECE + 5).map(|i| (i * 7 + 3) as u8).collect();
        for len in [
            0,
            1,
            COPY_PIECE - 1,
            COPY_PIECE,
            COPY_PIECE + 1,
            3 * COPY_PIECE + 5,
        ] {
            let mut dst = vec![0u8; len];
            copy(&mut dst, &src[..len]);
            assert_eq!(dst, &src[..len], "copy of {len} bytes");
            let mut out = vec![9u8; 3];
            extend(&mut out, &src[..len]);
            assert_eq!(
                out[..3],
                [9; 3],
                "extend of {len} bytes kept what was there"
            );
            assert_eq!(out[3..], src[..len], "extend of {len} bytes");
        }
    }
}
