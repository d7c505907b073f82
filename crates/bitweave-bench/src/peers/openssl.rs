//! OpenSSL's libcrypto as the peer in benchmarks (the same process, the same buffers).

#![allow(unsafe_code)]

use std::ffi::c_int;
use std::sync::Once;

use bitweave::{Direction, Suite};
use foreign_types::ForeignTypeRef;
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;

static PROVIDERS: Once = Once::new();

/// Loads the legacy provider (DES and SEED in OpenSSL 3) next to the default one.
fn load_providers() {
    PROVIDERS.call_once(|| {
        // Keep them loaded for the life of the process; a missing legacy provider only
        // means DES/SEED rows get no OpenSSL figure.
        if let Ok(p) = openssl::provider::Provider::try_load(None, "legacy", true) {
            std::mem::forget(p);
        }
        if let Ok(p) = openssl::provider::Provider::try_load(None, "default", true) {
            std::mem::forget(p);
        }
    });
}

thread_local! {
    /// Ciphers fetched from the providers, by name, kept for the process (a handful):
    /// OpenSSL 3 programs fetch once and key many contexts from the result (a fetch per
    /// context would charge the `--key-setup` rows a provider lookup no careful caller
    /// pays).
    static FETCHED: std::cell::RefCell<std::collections::HashMap<String, &'static Cipher>> =
        Default::default();
}

/// The cipher named `name`, fetched once per thread.
fn fetched(name: &str) -> Option<&'static Cipher> {
    FETCHED.with(|f| {
        if let Some(c) = f.borrow().get(name) {
            return Some(*c);
        }
        let c: &'static Cipher = Box::leak(Box::new(Cipher::fetch(None, name, None).ok()?));
        f.borrow_mut().insert(name.to_string(), c);
        Some(c)
    })
}

/// A keyed OpenSSL context for one suite and direction, padding off, ready for updates.
pub struct Peer {
    ctx: CipherCtx,
}

impl Peer {
    /// `None` when OpenSSL lacks the suite.
    pub fn new(suite: &Suite, dir: Direction, key: &[u8], iv: &[u8]) -> Option<Peer> {
        load_providers();
        let cipher = fetched(&suite.openssl_name()?)?;
        let mut ctx = CipherCtx::new().ok()?;
        let iv = if iv.is_empty() { None } else { Some(iv) };
        match dir {
            Direction::Encrypt => ctx.encrypt_init(Some(cipher), Some(key), iv).ok()?,
            Direction::Decrypt => ctx.decrypt_init(Some(cipher), Some(key), iv).ok()?,
        }
        ctx.set_padding(false);
        Some(Peer { ctx })
    }

    /// One EVP update of `buf[..len]` in place (`buf` at least a block longer than `len`),
    /// as bitweave runs, and straight through `EVP_CipherUpdate` as `openssl speed` calls
    /// it: the Rust wrapper's per-call size checks cost OpenSSL a few percent at 16-64 B.
    pub fn update_in_place(&mut self, buf: &mut [u8], len: usize) {
        assert!(buf.len() >= len + 32, "room for a block of look-ahead");
        let inl = c_int::try_from(len).expect("a buffer under 2 GiB");
        let mut outl: c_int = 0;
        // SAFETY: `ctx` is a live, keyed EVP_CIPHER_CTX; `buf` is valid for `len` bytes of
        // input and `len` plus a block of output; EVP_CipherUpdate allows in == out.
        let ok = unsafe {
            openssl_sys::EVP_CipherUpdate(
                self.ctx.as_ptr(),
                buf.as_mut_ptr(),
                &mut outl,
                buf.as_ptr(),
                inl,
            )
        };
        assert_eq!(ok, 1, "OpenSSL update");
    }
}

/// OpenSSL's AES-GCM through EVP, keyed once: one message per call (IV set, no AAD, tag
/// out or checked), out of place.
pub struct GcmPeer {
    ctx: CipherCtx,
    decrypt: CipherCtx,
}

impl GcmPeer {
    /// `None` when OpenSSL refuses the key.
    pub fn with_key(key: &[u8]) -> Option<GcmPeer> {
        load_providers();
        let cipher = match key.len() {
            16 => Cipher::aes_128_gcm(),
            24 => Cipher::aes_192_gcm(),
            _ => Cipher::aes_256_gcm(),
        };
        let mut ctx = CipherCtx::new().ok()?;
        ctx.encrypt_init(Some(cipher), Some(key), None).ok()?;
        let mut decrypt = CipherCtx::new().ok()?;
        decrypt.decrypt_init(Some(cipher), Some(key), None).ok()?;
        Some(GcmPeer { ctx, decrypt })
    }

    /// Encrypts `input` into `out` under `nonce` and writes the tag.
    pub fn encrypt(&mut self, nonce: &[u8; 12], input: &[u8], out: &mut [u8], tag: &mut [u8; 16]) {
        let ctx = &mut self.ctx;
        ctx.encrypt_init(None, None, Some(nonce)).expect("GCM IV");
        let n = ctx.cipher_update(input, Some(out)).expect("GCM update");
        ctx.cipher_final(&mut out[n..]).expect("GCM final");
        ctx.tag(tag).expect("GCM tag");
    }

    /// Decrypts `input` into `out` and checks `tag`; `false` on a mismatch.
    pub fn decrypt(
        &mut self,
        nonce: &[u8; 12],
        input: &[u8],
        out: &mut [u8],
        tag: &[u8; 16],
    ) -> bool {
        let ctx = &mut self.decrypt;
        ctx.decrypt_init(None, None, Some(nonce)).expect("GCM IV");
        ctx.set_tag(tag).expect("GCM tag");
        let n = ctx.cipher_update(input, Some(out)).expect("GCM update");
        ctx.cipher_final(&mut out[n..]).is_ok()
    }
}
