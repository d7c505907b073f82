//! libgcrypt as a second benchmark peer (it has AES-NI/VAES code paths), through its C
//! API: a handle per suite and direction, fed the same buffers as bitweave and OpenSSL.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Once;

use bitweave::{CipherKind, Direction, Mode, Suite};

type Handle = *mut c_void;
type GcryError = c_uint;

extern "C" {
    fn gcry_check_version(req: *const c_char) -> *const c_char;
    fn gcry_control(cmd: c_int, ...) -> GcryError;
    fn gcry_cipher_open(h: *mut Handle, algo: c_int, mode: c_int, flags: c_uint) -> GcryError;
    fn gcry_cipher_close(h: Handle);
    fn gcry_cipher_setkey(h: Handle, key: *const c_void, len: usize) -> GcryError;
    fn gcry_cipher_setiv(h: Handle, iv: *const c_void, len: usize) -> GcryError;
    fn gcry_cipher_setctr(h: Handle, ctr: *const c_void, len: usize) -> GcryError;
    fn gcry_cipher_encrypt(
        h: Handle,
        out: *mut c_void,
        outlen: usize,
        inp: *const c_void,
        inlen: usize,
    ) -> GcryError;
    fn gcry_cipher_decrypt(
        h: Handle,
        out: *mut c_void,
        outlen: usize,
        inp: *const c_void,
        inlen: usize,
    ) -> GcryError;
    fn gcry_cipher_gettag(h: Handle, tag: *mut c_void, len: usize) -> GcryError;
    fn gcry_cipher_checktag(h: Handle, tag: *const c_void, len: usize) -> GcryError;
}

const GCRYCTL_DISABLE_SECMEM: c_int = 37;
const GCRYCTL_INITIALIZATION_FINISHED: c_int = 38;
const GCRYCTL_DISABLE_HWF: c_int = 63;

/// libgcrypt's names for the hardware features a `BITWEAVE_CPU` tier leaves out, so the
/// peer runs on the same tier as bitweave. Names this libgcrypt does not know (1.10 has no
/// AVX-512 or GFNI code) are refused by it and change nothing.
pub fn disabled_features() -> &'static [&'static CStr] {
    use bitweave::cpu::{cap, Tier};
    // Highest tier first: each tier leaves out a longer prefix of this list.
    const X86_HIGHEST_FIRST: &[&CStr] = &[
        c"intel-avx512",
        c"intel-gfni",
        c"intel-vaes-vpclmul",
        c"intel-avx",
        c"intel-avx2",
        c"intel-fast-vpgather",
        c"intel-aesni",
        c"intel-pclmul",
        c"intel-ssse3",
        c"intel-sse4.1",
        c"intel-shaext",
    ];
    const ARM_HIGHEST_FIRST: &[&CStr] = &[
        c"arm-aes",
        c"arm-pmull",
        c"arm-sha1",
        c"arm-sha2",
        c"arm-neon",
    ];
    let (list, above) = match cap() {
        Ok(Some(Tier::Avx2Gfni)) => (X86_HIGHEST_FIRST, 1),
        Ok(Some(Tier::Avx2)) => (X86_HIGHEST_FIRST, 2),
        Ok(Some(Tier::Avx2NoVaes)) => (X86_HIGHEST_FIRST, 3),
        Ok(Some(Tier::Aesni)) => (X86_HIGHEST_FIRST, 6),
        Ok(Some(Tier::Neon)) => (ARM_HIGHEST_FIRST, 4),
        Ok(Some(Tier::Portable)) if cfg!(target_arch = "aarch64") => (ARM_HIGHEST_FIRST, 5),
        Ok(Some(Tier::Portable)) => (X86_HIGHEST_FIRST, X86_HIGHEST_FIRST.len()),
        _ => (X86_HIGHEST_FIRST, 0),
    };
    &list[..above]
}

static INIT: Once = Once::new();

/// libgcrypt's version string.
pub fn version() -> String {
    init();
    // SAFETY: a null argument only queries; the result is a static NUL-terminated string.
    unsafe { CStr::from_ptr(gcry_check_version(std::ptr::null())) }
        .to_string_lossy()
        .into_owned()
}

fn init() {
    INIT.call_once(|| {
        // SAFETY: the documented initialisation sequence, run once before any other call;
        // GCRYCTL_DISABLE_HWF takes a NUL-terminated name and must come before
        // gcry_check_version.
        unsafe {
            for name in disabled_features() {
                gcry_control(
                    GCRYCTL_DISABLE_HWF,
                    name.as_ptr(),
                    std::ptr::null::<c_char>(),
                );
            }
            gcry_check_version(std::ptr::null());
            gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
            gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        }
    });
}

/// An open libgcrypt cipher handle for one suite and direction.
pub struct Peer {
    handle: Handle,
    decrypt: bool,
}

impl Drop for Peer {
    fn drop(&mut self) {
        // SAFETY: the handle came from gcry_cipher_open and is closed once.
        unsafe { gcry_cipher_close(self.handle) }
    }
}

impl Peer {
    /// `None` when libgcrypt lacks the suite (CFB1, CTR for 64-bit blocks is fine).
    pub fn new(suite: &Suite, dir: Direction, key: &[u8], iv: &[u8]) -> Option<Peer> {
        init();
        let algo = match suite.cipher {
            CipherKind::Aes128 => 7,
            CipherKind::Aes192 => 8,
            CipherKind::Aes256 => 9,
            CipherKind::Des => 302,
            CipherKind::DesEde | CipherKind::DesEde3 => 2,
            CipherKind::Seed => 309,
        };
        let mode = match suite.mode {
            Mode::Ecb => 1,
            Mode::Cfb => 2,
            Mode::Cbc => 3,
            Mode::Ofb => 5,
            Mode::Ctr => 6,
            Mode::Cfb8 => 12,
            Mode::Cfb1 => return None,
        };
        // Two-key 3DES is three-key 3DES with K3 = K1.
        let key: Vec<u8> = match suite.cipher {
            CipherKind::DesEde => [key, &key[..8]].concat(),
            _ => key.to_vec(),
        };
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; key/iv pointers and lengths come from slices.
        unsafe {
            if gcry_cipher_open(&mut handle, algo, mode, 0) != 0 {
                return None;
            }
            let peer = Peer {
                handle,
                decrypt: dir == Direction::Decrypt,
            };
            if gcry_cipher_setkey(handle, key.as_ptr().cast(), key.len()) != 0 {
                return None;
            }
            let err = match suite.mode {
                Mode::Ecb => 0,
                Mode::Ctr => gcry_cipher_setctr(handle, iv.as_ptr().cast(), iv.len()),
                _ => gcry_cipher_setiv(handle, iv.as_ptr().cast(), iv.len()),
            };
            (err == 0).then_some(peer)
        }
    }

    /// One call on `buf[..len]` in place (libgcrypt's in-place form: no input pointer),
    /// as bitweave runs.
    pub fn update_in_place(&mut self, buf: &mut [u8], len: usize) {
        let buf = &mut buf[..len];
        // SAFETY: `buf` is valid for its length; a null input with length 0 means in place.
        let err = unsafe {
            let o = buf.as_mut_ptr().cast();
            if self.decrypt {
                gcry_cipher_decrypt(self.handle, o, buf.len(), std::ptr::null(), 0)
            } else {
                gcry_cipher_encrypt(self.handle, o, buf.len(), std::ptr::null(), 0)
            }
        };
        assert_eq!(err, 0, "libgcrypt cipher call failed");
    }
}

/// libgcrypt's AES-GCM, keyed once: one message per call (IV set, no AAD, tag out or
/// checked), out of place.
pub struct GcmPeer {
    handle: Handle,
}

impl Drop for GcmPeer {
    fn drop(&mut self) {
        // SAFETY: the handle came from gcry_cipher_open and is closed once.
        unsafe { gcry_cipher_close(self.handle) }
    }
}

impl GcmPeer {
    /// `None` when libgcrypt refuses the key.
    pub fn with_key(key: &[u8]) -> Option<GcmPeer> {
        init();
        let algo = match key.len() {
            16 => 7,
            24 => 8,
            _ => 9,
        };
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; the key pointer and length come from a slice.
        unsafe {
            // GCRY_CIPHER_MODE_GCM = 9.
            if gcry_cipher_open(&mut handle, algo, 9, 0) != 0 {
                return None;
            }
            let peer = GcmPeer { handle };
            (gcry_cipher_setkey(handle, key.as_ptr().cast(), key.len()) == 0).then_some(peer)
        }
    }

    /// Encrypts `input` into `out` under `nonce` and writes the tag.
    pub fn encrypt(&mut self, nonce: &[u8; 12], input: &[u8], out: &mut [u8], tag: &mut [u8; 16]) {
        // SAFETY: every pointer and length comes from a live slice of that length.
        let err = unsafe {
            gcry_cipher_setiv(self.handle, nonce.as_ptr().cast(), 12)
                | gcry_cipher_encrypt(
                    self.handle,
                    out.as_mut_ptr().cast(),
                    out.len(),
                    input.as_ptr().cast(),
                    input.len(),
                )
                | gcry_cipher_gettag(self.handle, tag.as_mut_ptr().cast(), 16)
        };
        assert_eq!(err, 0, "libgcrypt GCM encryption failed");
    }

    /// Decrypts `input` into `out` and checks `tag`; `false` on a mismatch.
    pub fn decrypt(
        &mut self,
        nonce: &[u8; 12],
        input: &[u8],
        out: &mut [u8],
        tag: &[u8; 16],
    ) -> bool {
        // SAFETY: every pointer and length comes from a live slice of that length.
        unsafe {
            let err = gcry_cipher_setiv(self.handle, nonce.as_ptr().cast(), 12)
                | gcry_cipher_decrypt(
                    self.handle,
                    out.as_mut_ptr().cast(),
                    out.len(),
                    input.as_ptr().cast(),
                    input.len(),
                );
            assert_eq!(err, 0, "libgcrypt GCM decryption failed");
            gcry_cipher_checktag(self.handle, tag.as_ptr().cast(), 16) == 0
        }
    }
}
