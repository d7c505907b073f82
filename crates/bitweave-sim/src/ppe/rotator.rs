//! The PPE's rotator (paper, section 3.2): four 16-bit sub-rotators that rotate right, joined
//! by the mode bits so the unit rotates four 16-bit words, two 32-bit words or one 64-bit
//! word.
//!
//! Each sub-rotator has a 4-bit amount (section 3.2: "controlled by four, 4-bit RC control
//! bits"). A rotation by more than 15 and the joining of sub-rotators are this model's
//! interpretation of the remaining rotator bits (27 = 3 mode + 4×4 amounts + 4×2 selects):
//! 1. crossbar: sub-rotator j takes sub-word `sel[j]` of the input (this also moves words
//!    between lanes: any lane shuffle at word granularity);
//! 2. sub-rotation: sub-rotator j rotates its 16 bits right by `amt[j]`;
//! 3. merge: inside a lane of k linked sub-rotators, output sub-word j keeps the low
//!    `16 - amt[j]` bits of its own sub-rotator and takes the high `amt[j]` bits from the next
//!    sub-rotator of its lane (cyclically). With `sel` offsetting by q sub-words and all
//!    amounts r, a lane is rotated right by `16q + r`.

use super::alu::linked;

fn low_mask(n: u32) -> u16 {
    if n >= 16 {
        0xFFFF
    } else {
        ((1u32 << n) - 1) as u16
    }
}

/// The lane (first slice, slice count) that slice `j` belongs to in `mode`.
pub fn lane_of(mode: u8, j: usize) -> (usize, usize) {
    let mut start = j;
    while linked(mode, start) {
        start -= 1;
    }
    let mut end = j + 1;
    while end < 4 && linked(mode, end) {
        end += 1;
    }
    (start, end - start)
}

/// One pass through the rotator.
pub fn rotate(ctl: &super::isa::RotCtl, v: u64) -> u64 {
    let sub = |x: u64, j: usize| ((x >> (16 * j)) & 0xFFFF) as u16;
    let w: [u16; 4] = core::array::from_fn(|j| {
        sub(v, ctl.sel[j] as usize & 3).rotate_right(ctl.amt[j] as u32 & 15)
    });
    let mut out = 0u64;
    for j in 0..4 {
        let (start, k) = lane_of(ctl.mode, j);
        let next = start + (j - start + 1) % k;
        let keep = low_mask(16 - (ctl.amt[j] as u32 & 15));
        let z = (w[j] & keep) | (w[next] & !keep);
        out |= (z as u64) << (16 * j);
    }
    out
}

/// The control bits that rotate each lane of a word-size mode right: output lane L takes
/// input lane `src[L]` rotated right by `amt[L]` bits (lanes of `bits` = 16, 32 or 64).
pub fn lane_ctl(mode: u8, bits: u32, src: &[u8], amt: &[u32]) -> super::isa::RotCtl {
    let k = (bits / 16) as usize;
    let mut ctl = super::isa::RotCtl {
        mode,
        ..Default::default()
    };
    for lane in 0..4 / k {
        let n = amt[lane] % bits;
        let (q, r) = ((n / 16) as usize, (n % 16) as u8);
        for i in 0..k {
            ctl.sel[lane * k + i] = (src[lane] as usize * k + (i + q) % k) as u8;
            ctl.amt[lane * k + i] = r;
        }
    }
    ctl
}

#[cfg(test)]
mod tests {
    use super::super::isa::{MODE_16, MODE_32, MODE_64};
    use super::*;

    #[test]
    fn rotates_every_lane_size_by_every_amount() {
        let v = 0x0123_4567_89AB_CDEFu64;
        for n in 0..64 {
            let c = lane_ctl(MODE_64, 64, &[0], &[n]);
            assert_eq!(rotate(&c, v), v.rotate_right(n), "64-bit by {n}");
        }
        for n in 0..32 {
            let c = lane_ctl(MODE_32, 32, &[1, 0], &[n, (n + 7) % 32]);
            let lo = (v as u32).rotate_right((n + 7) % 32) as u64;
            let hi = ((v >> 32) as u32).rotate_right(n) as u64;
            assert_eq!(rotate(&c, v), lo << 32 | hi, "32-bit swap by {n}");
        }
        for n in 0..16 {
            let c = lane_ctl(MODE_16, 16, &[3, 3, 0, 1], &[n, 1, 2, 15]);
            let s = |j: usize| (v >> (16 * j)) as u16;
            let want = s(3).rotate_right(n) as u64
                | (s(3).rotate_right(1) as u64) << 16
                | (s(0).rotate_right(2) as u64) << 32
                | (s(1).rotate_right(15) as u64) << 48;
            assert_eq!(rotate(&c, v), want);
        }
    }
}
