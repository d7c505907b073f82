//! RustCrypto's `cbc` and `ctr` crates driven over bitweave's cipher types (the `cipher`
//! 0.5 traits of `bitweave::rustcrypto`), checked against the shared vectors, plus
//! multi-block vs single-block and in-place vs buffer-to-buffer on random data.

mod common;

use bitweave::rustcrypto::traits::array::{Array, ArraySize};
use bitweave::rustcrypto::traits::consts::{U16, U8};
use bitweave::rustcrypto::traits::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, BlockSizeUser,
    KeyInit, KeyIvInit, StreamCipher,
};
use bitweave::rustcrypto::{Aes128, Aes192, Aes256, Des, Seed, TdesEde2, TdesEde3};
use common::{block_cipher_files, VectorFile};
use rand::{Rng, SeedableRng};

/// The byte buffer as whole blocks (the vectors used here are whole blocks).
fn blocks<N: ArraySize>(buf: &mut [u8]) -> &mut [Array<u8, N>] {
    let (blocks, rest) = Array::slice_as_chunks_mut(buf);
    assert!(rest.is_empty(), "whole blocks");
    blocks
}

/// Runs one vector file through RustCrypto's CBC or CTR over `C`; false when the file is
/// not one these crates cover (other modes, padding, interleaving).
fn check_file<C>(file: &VectorFile, ctr_ok: impl Fn(&[u8], &[u8], &mut [u8])) -> bool
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + KeyInit,
{
    let mode = file.algorithm.rsplit('-').next().unwrap();
    if file.padding != "none" || file.interleave != 1 || !matches!(mode, "cbc" | "ctr") {
        return false;
    }
    for v in &file.vectors {
        let ctx = format!("{} vector {}", file.file, v.id);
        let mut buf = v.plaintext.clone();
        if mode == "cbc" {
            let mut enc = cbc::Encryptor::<C>::new_from_slices(&v.key, &v.iv).unwrap();
            enc.encrypt_blocks(blocks(&mut buf));
            assert_eq!(buf, v.ciphertext, "{ctx}: cbc encrypt");
            let mut dec = cbc::Decryptor::<C>::new_from_slices(&v.key, &v.iv).unwrap();
            dec.decrypt_blocks(blocks(&mut buf));
            assert_eq!(buf, v.plaintext, "{ctx}: cbc decrypt");
        } else {
            ctr_ok(&v.key, &v.iv, &mut buf);
            assert_eq!(buf, v.ciphertext, "{ctx}: ctr");
        }
    }
    true
}

fn ctr128<C>(key: &[u8], iv: &[u8], buf: &mut [u8])
where
    C: BlockCipherEncrypt + KeyInit + BlockSizeUser<BlockSize = U16>,
{
    ctr::Ctr128BE::<C>::new_from_slices(key, iv)
        .unwrap()
        .apply_keystream(buf);
}

fn ctr64<C>(key: &[u8], iv: &[u8], buf: &mut [u8])
where
    C: BlockCipherEncrypt + KeyInit + BlockSizeUser<BlockSize = U8>,
{
    ctr::Ctr64BE::<C>::new_from_slices(key, iv)
        .unwrap()
        .apply_keystream(buf);
}

#[test]
fn rustcrypto_modes_over_bitweave_match_the_vectors() {
    let mut checked = 0;
    for file in block_cipher_files() {
        let cipher = file.algorithm.rsplit_once('-').unwrap().0.to_string();
        let ran = match cipher.as_str() {
            "aes-128" => check_file::<Aes128>(&file, ctr128::<Aes128>),
            "aes-192" => check_file::<Aes192>(&file, ctr128::<Aes192>),
            "aes-256" => check_file::<Aes256>(&file, ctr128::<Aes256>),
            "seed" => check_file::<Seed>(&file, ctr128::<Seed>),
            "des" => check_file::<Des>(&file, ctr64::<Des>),
            "des-ede" => check_file::<TdesEde2>(&file, ctr64::<TdesEde2>),
            "des-ede3" => check_file::<TdesEde3>(&file, ctr64::<TdesEde3>),
            other => panic!("{}: no RustCrypto type for {other}", file.file),
        };
        checked += ran as usize;
    }
    // cbc for 7 ciphers, ctr for the 6 that have ctr files (2-key 3DES has none).
    assert_eq!(checked, 13, "vector files checked");
}

/// Multi-block calls (the engine's batches, `ParBlocks` and tails) equal one block at a
/// time, in place and buffer-to-buffer, for every type and many lengths.
fn batches_equal_single_blocks<C>(key_len: usize, block: usize)
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + KeyInit,
{
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed + block as u64);
    for n in [0, 1, 2, 7, 31, 32, 33, 64, 100, 511, 512, 513, 1100] {
        let key: Vec<u8> = (0..key_len).map(|_| rng.gen()).collect();
        let c = C::new_from_slice(&key).unwrap();
        let data: Vec<u8> = (0..n * block).map(|_| rng.gen()).collect();
        let mut batch = data.clone();
        c.encrypt_blocks(blocks(&mut batch));
        let mut single = data.clone();
        for b in blocks(&mut single) {
            c.encrypt_block(b);
        }
        assert_eq!(batch, single, "{n} blocks: batch vs single");
        let mut b2b = vec![0u8; data.len()];
        let mut input = data.clone();
        c.encrypt_blocks_b2b(blocks(&mut input), blocks(&mut b2b))
            .unwrap();
        assert_eq!(b2b, batch, "{n} blocks: b2b vs in place");
        c.decrypt_blocks(blocks(&mut batch));
        assert_eq!(batch, data, "{n} blocks: round trip");
    }
}

#[test]
fn batches_equal_single_blocks_for_every_type() {
    batches_equal_single_blocks::<Aes128>(16, 16);
    batches_equal_single_blocks::<Aes192>(24, 16);
    batches_equal_single_blocks::<Aes256>(32, 16);
    batches_equal_single_blocks::<Seed>(16, 16);
    batches_equal_single_blocks::<Des>(8, 8);
    batches_equal_single_blocks::<TdesEde2>(16, 8);
    batches_equal_single_blocks::<TdesEde3>(24, 8);
}
