//! The portable lane type: a `u64` is 64 lanes. Safe code only; LLVM keeps the planes in
//! general-purpose registers (or spills them) and the operations are single ALU
//! instructions (`andn` with BMI1).
#![deny(unsafe_code)]

use super::{Lanes, Logic};

impl Logic for u64 {
    const TWO_INPUT_GATES: bool = true;
    #[inline(always)]
    fn splat(x: u64) -> Self {
        x
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        !self & o
    }
    #[inline(always)]
    fn not(self) -> Self {
        !self
    }
}

impl Lanes for u64 {
    const WORDS: usize = 1;
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        self << N
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        self >> N
    }
    #[inline(always)]
    fn load8(src: &[u8]) -> Self {
        u64::from_le_bytes(src[..8].try_into().unwrap())
    }
    #[inline(always)]
    fn store8(self, dst: &mut [u8]) {
        dst[..8].copy_from_slice(&self.to_le_bytes());
    }
    #[inline(always)]
    fn load16(src: &[u8]) -> (Self, Self) {
        (
            u64::from_le_bytes(src[..8].try_into().unwrap()),
            u64::from_le_bytes(src[8..16].try_into().unwrap()),
        )
    }
    #[inline(always)]
    fn store16(lo: Self, hi: Self, dst: &mut [u8]) {
        dst[..8].copy_from_slice(&lo.to_le_bytes());
        dst[8..16].copy_from_slice(&hi.to_le_bytes());
    }
}
