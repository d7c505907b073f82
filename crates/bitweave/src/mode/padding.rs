//! PKCS#7 padding (RFC 5652 §6.3): 1..=block bytes, each holding the pad length.
//!
//! The check reads every byte of the last block whatever the padding length, and combines
//! the comparisons with masks, so its timing does not tell where padding goes wrong.

use crate::error::{Error, Result};

/// The padding bytes for a message of `len` bytes: always 1..=block bytes.
pub fn pad(len: usize, block: usize) -> Vec<u8> {
    let n = block - len % block;
    vec![n as u8; n]
}

/// The number of padding bytes at the end of `last_block`, or [`Error::BadPadding`]
/// (also for an empty slice, which holds no padding).
pub fn unpad_len(last_block: &[u8]) -> Result<usize> {
    let block = last_block.len();
    let Some(&n) = last_block.last() else {
        return Err(Error::BadPadding);
    };
    // bad = n == 0 || n > block, computed without branching on n.
    let mut bad = ((n as u32).wrapping_sub(1) >> 31) as u8; // n == 0
    bad |= ((block as u32).wrapping_sub(n as u32) >> 31) as u8; // n > block
    for (i, &b) in last_block.iter().enumerate() {
        // Byte i is padding when i >= block - n; then it must equal n.
        let pos_from_end = (block - i) as u32; // 1..=block
        let in_pad = (((n as u32).wrapping_sub(pos_from_end) >> 31) as u8) ^ 1;
        let differs = ((b ^ n) != 0) as u8;
        bad |= in_pad & differs;
    }
    if bad == 0 {
        Ok(n as usize)
    } else {
        Err(Error::BadPadding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_unpads() {
        assert_eq!(pad(0, 8), vec![8; 8]);
        assert_eq!(pad(13, 16), vec![3; 3]);
        assert_eq!(unpad_len(&[1, 2, 3, 4, 5, 6, 7, 1]), Ok(1));
        assert_eq!(unpad_len(&[8; 8]), Ok(8));
        assert_eq!(unpad_len(&[0, 0, 0, 0, 0, 0, 3, 3]), Err(Error::BadPadding));
        assert_eq!(unpad_len(&[0; 8]), Err(Error::BadPadding));
        assert_eq!(unpad_len(&[9; 8]), Err(Error::BadPadding));
        assert_eq!(unpad_len(&[1, 2, 3, 4, 5, 2, 3, 2]), Err(Error::BadPadding));
    }
}
