//! OpenSSL as the oracle: the `openssl` crate's libcrypto with the legacy provider loaded
//! (DES and SEED live there in OpenSSL 3).

use std::sync::Once;

use bitweave::{Direction, Mode, Suite};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;

static PROVIDERS: Once = Once::new();

/// Loads the legacy and default providers once for the whole process.
pub fn load_providers() {
    PROVIDERS.call_once(|| {
        let legacy = openssl::provider::Provider::load(None, "legacy").expect("legacy provider");
        let default = openssl::provider::Provider::load(None, "default").expect("default provider");
        // Providers stay loaded for the life of the test process.
        std::mem::forget(legacy);
        std::mem::forget(default);
    });
}

/// Fetches OpenSSL's implementation of `name` (e.g. "des-ede3-cfb1").
pub fn fetch(name: &str) -> Cipher {
    load_providers();
    Cipher::fetch(None, name, None).unwrap_or_else(|e| panic!("OpenSSL lacks {name}: {e}"))
}

/// Runs OpenSSL's `cipher` over `data` in one go.
pub fn run(
    cipher: &openssl::cipher::CipherRef,
    dir: Direction,
    key: &[u8],
    iv: &[u8],
    pad: bool,
    data: &[u8],
) -> Result<Vec<u8>, openssl::error::ErrorStack> {
    let mut ctx = CipherCtx::new()?;
    let iv = if iv.is_empty() { None } else { Some(iv) };
    match dir {
        Direction::Encrypt => ctx.encrypt_init(Some(cipher), Some(key), iv)?,
        Direction::Decrypt => ctx.decrypt_init(Some(cipher), Some(key), iv)?,
    }
    ctx.set_padding(pad);
    let mut out = Vec::new();
    ctx.cipher_update_vec(data, &mut out)?;
    ctx.cipher_final_vec(&mut out)?;
    Ok(out)
}

/// A mode that OpenSSL lacks for this cipher, computed here over OpenSSL's ECB: CTR
/// (whole block as a big-endian counter) and CFB8/CFB1, straight from SP 800-38A.
pub fn reference_mode(suite: Suite, dir: Direction, key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let ecb = fetch(&format!("{}-ecb", suite.cipher.name()));
    let e = |block: &[u8]| run(&ecb, Direction::Encrypt, key, &[], false, block).unwrap();
    let bs = iv.len();
    match suite.mode {
        Mode::Ctr => {
            let mut ctr = iv.to_vec();
            let mut out = Vec::new();
            for chunk in data.chunks(bs) {
                let ks = e(&ctr);
                out.extend(chunk.iter().zip(&ks).map(|(a, b)| a ^ b));
                for b in ctr.iter_mut().rev() {
                    *b = b.wrapping_add(1);
                    if *b != 0 {
                        break;
                    }
                }
            }
            out
        }
        Mode::Cfb8 => {
            let mut reg = iv.to_vec();
            data.iter()
                .map(|&x| {
                    let y = x ^ e(&reg)[0];
                    reg.remove(0);
                    reg.push(if dir == Direction::Encrypt { y } else { x });
                    y
                })
                .collect()
        }
        Mode::Cfb1 => {
            let mut bits: Vec<u8> = iv
                .iter()
                .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1))
                .collect();
            let mut out = Vec::new();
            for &x in data {
                let mut y = 0u8;
                for i in (0..8).rev() {
                    let reg: Vec<u8> = bits
                        .chunks(8)
                        .map(|c| c.iter().fold(0, |a, &b| (a << 1) | b))
                        .collect();
                    let inb = (x >> i) & 1;
                    let outb = inb ^ (e(&reg)[0] >> 7);
                    y |= outb << i;
                    bits.remove(0);
                    bits.push(if dir == Direction::Encrypt { outb } else { inb });
                }
                out.push(y);
            }
            out
        }
        m => panic!("OpenSSL has {m} for every cipher"),
    }
}
