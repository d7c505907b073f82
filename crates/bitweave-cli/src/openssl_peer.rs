//! OpenSSL's libcrypto as the peer in benchmarks (the same process, the same buffers).

use std::sync::Once;

use bitweave::{Direction, Suite};
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

/// A keyed OpenSSL context for one suite and direction, padding off, ready for updates.
pub struct Peer {
    ctx: CipherCtx,
}

impl Peer {
    /// `None` when OpenSSL lacks the suite.
    pub fn new(suite: &Suite, dir: Direction, key: &[u8], iv: &[u8]) -> Option<Peer> {
        load_providers();
        let name = suite.openssl_name()?;
        let cipher = Cipher::fetch(None, &name, None).ok()?;
        let mut ctx = CipherCtx::new().ok()?;
        let iv = if iv.is_empty() { None } else { Some(iv) };
        match dir {
            Direction::Encrypt => ctx.encrypt_init(Some(&cipher), Some(key), iv).ok()?,
            Direction::Decrypt => ctx.decrypt_init(Some(&cipher), Some(key), iv).ok()?,
        }
        ctx.set_padding(false);
        Some(Peer { ctx })
    }

    /// One EVP update of `input` into `output` (at least as long as `input` plus a block).
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) {
        self.ctx
            .cipher_update(input, Some(output))
            .expect("OpenSSL update");
    }
}
