//! Authenticated encryption: π-Cipher (CAESAR round 2, v2), the ARX paper's AEAD.
//!
//! Six variants (PI-CIPHER.md §1): 16-, 32- and 64-bit words, two key sizes each. The output
//! is SUPERCOP's: `E(nsec) || C || T`, with the encrypted secret message number and the tag
//! each one rate long (16/32/64 bytes). π runs 3 rounds, as the designers' reference (`ref2`)
//! and their published KATs do; SUPERCOP's v2 `ref` directory computes a different function.
//!
//! Backends: `ref` (the plain reference, [`pi::reference`]), `portable` (the scalar π one
//! state at a time, with the lane engine's savings), `avx2` and `avx512` (the whole-step
//! kernel of that width for runs of one message's blocks — AVX-512's rest through AVX2's —
//! and the AVX2 lane engine for everything else, chosen at run time). Every backend computes the same bytes;
//! the tests hold each fast path to the reference.
//!
//! ```
//! use bitweave::aead::{PiCipher, PiVariant};
//! let v: PiVariant = "pi32cipher128v2".parse().unwrap();
//! let pi = PiCipher::new(v, &[7; 16]).unwrap();
//! let c = pi.encrypt(&[1; 16], &[2; 32], b"header", b"hello").unwrap();
//! assert_eq!(c.len(), 32 + 5 + 32);
//! let opened = pi.decrypt(&[1; 16], b"header", &c).unwrap();
//! assert_eq!(&opened.plaintext[..], b"hello");
//! assert_eq!(&opened.nsec[..], &[2; 32]);
//! ```
#![deny(unsafe_code)]

#[doc(hidden)]
pub mod pi;
mod stream;

pub use stream::{Opener, Opening, Sealer, Sealing};

use std::fmt;
use std::str::FromStr;

use zeroize::Zeroizing;

use crate::cpu::Feature;
use crate::error::{Error, Result};
use pi::engine::{self, Job, Out, WholeSteps};
use pi::word::Word;
use pi::Sealed;

/// A π-Cipher v2 variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PiVariant {
    Pi16Cipher096V2,
    Pi16Cipher128V2,
    Pi32Cipher128V2,
    Pi32Cipher256V2,
    Pi64Cipher128V2,
    Pi64Cipher256V2,
}

impl PiVariant {
    pub const ALL: [PiVariant; 6] = [
        PiVariant::Pi16Cipher096V2,
        PiVariant::Pi16Cipher128V2,
        PiVariant::Pi32Cipher128V2,
        PiVariant::Pi32Cipher256V2,
        PiVariant::Pi64Cipher128V2,
        PiVariant::Pi64Cipher256V2,
    ];

    /// SUPERCOP's name, e.g. `pi32cipher128v2`.
    pub fn name(self) -> &'static str {
        match self {
            PiVariant::Pi16Cipher096V2 => "pi16cipher096v2",
            PiVariant::Pi16Cipher128V2 => "pi16cipher128v2",
            PiVariant::Pi32Cipher128V2 => "pi32cipher128v2",
            PiVariant::Pi32Cipher256V2 => "pi32cipher256v2",
            PiVariant::Pi64Cipher128V2 => "pi64cipher128v2",
            PiVariant::Pi64Cipher256V2 => "pi64cipher256v2",
        }
    }

    /// Word size w in bits.
    pub fn word_bits(self) -> usize {
        match self {
            PiVariant::Pi16Cipher096V2 | PiVariant::Pi16Cipher128V2 => 16,
            PiVariant::Pi32Cipher128V2 | PiVariant::Pi32Cipher256V2 => 32,
            PiVariant::Pi64Cipher128V2 | PiVariant::Pi64Cipher256V2 => 64,
        }
    }

    /// Key length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            PiVariant::Pi16Cipher096V2 => 12,
            PiVariant::Pi32Cipher256V2 | PiVariant::Pi64Cipher256V2 => 32,
            _ => 16,
        }
    }

    /// Public message number (nonce) length in bytes.
    pub fn npub_len(self) -> usize {
        if self.word_bits() == 16 {
            4
        } else {
            16
        }
    }

    /// Rate in bytes: also the length of the secret message number, of its encryption and
    /// of the tag.
    pub fn rate(self) -> usize {
        self.word_bits()
    }

    /// Secret message number length in bytes (one rate block).
    pub fn nsec_len(self) -> usize {
        self.rate()
    }

    /// Tag length in bytes (one rate block, never truncated).
    pub fn tag_len(self) -> usize {
        self.rate()
    }

    /// Ciphertext length for a message of `mlen` bytes (with an SMN).
    pub fn ciphertext_len(self, mlen: usize) -> usize {
        self.nsec_len() + mlen + self.tag_len()
    }
}

impl fmt::Display for PiVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PiVariant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        PiVariant::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| Error::UnknownCipher(s.to_string()))
    }
}

/// How π-Cipher is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PiBackend {
    /// The plain reference, one block at a time.
    Reference,
    /// The lane engine, vectorised for the build's baseline only.
    Portable,
    /// The lane engine with AVX2 (4×64, 8×32 or 16×16-bit lanes).
    Avx2,
    /// The AVX-512 F/BW/VL/VBMI2 whole-step kernel for runs of one message's blocks, and
    /// AVX2's for the rest. Its lane engine is AVX2's: an AVX-512 lane kernel (the portable
    /// one compiled for AVX-512) ran 256-768 B messages 1.5-2.5× slower than AVX2's and
    /// many messages no faster (AMD Zen 4, 2026-11-26).
    Avx512,
}

impl PiBackend {
    pub const ALL: [PiBackend; 4] = [
        PiBackend::Reference,
        PiBackend::Portable,
        PiBackend::Avx2,
        PiBackend::Avx512,
    ];

    /// The name for `--backend` and `bitweave list`.
    pub fn name(self) -> &'static str {
        match self {
            PiBackend::Reference => "ref",
            PiBackend::Portable => "portable",
            PiBackend::Avx2 => "avx2",
            PiBackend::Avx512 => "avx512",
        }
    }

    /// CPU features the backend needs.
    pub fn features(self) -> &'static [Feature] {
        match self {
            PiBackend::Reference | PiBackend::Portable => &[],
            PiBackend::Avx2 => &[Feature::Avx2],
            PiBackend::Avx512 => &[
                Feature::Avx512f,
                Feature::Avx512bw,
                Feature::Avx512vl,
                Feature::Avx512vbmi2,
            ],
        }
    }

    /// CPU features the backend needs, as `a+b` (`-` for none).
    pub fn needs(self) -> String {
        crate::cpu::describe(self.features())
    }

    /// Whether this CPU runs it (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        match self {
            PiBackend::Reference | PiBackend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            PiBackend::Avx2 => pi::x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            PiBackend::Avx512 => pi::x86::has_avx512(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Lanes (blocks processed together) for a word size.
    pub fn lanes(self, word_bits: usize) -> usize {
        match (self, word_bits) {
            (PiBackend::Reference, _) => 1,
            (PiBackend::Portable, _) => 1,
            (PiBackend::Avx2 | PiBackend::Avx512, w) => 256 / w,
        }
    }

    /// The fastest backend this CPU runs.
    pub fn best() -> PiBackend {
        [PiBackend::Avx512, PiBackend::Avx2]
            .into_iter()
            .find(|b| b.available())
            .unwrap_or(PiBackend::Portable)
    }

    /// The backend named `name`, or [`best`](Self::best) for `None`; an unknown name or one
    /// this CPU cannot run is an error, never a silent fallback.
    pub fn select(name: Option<&str>) -> Result<PiBackend> {
        crate::cpu::check().map_err(|e| Error::CpuCap(e.to_string()))?;
        let Some(name) = name else {
            return Ok(PiBackend::best());
        };
        let b = PiBackend::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| Error::UnknownBackend(name.to_string()))?;
        if !b.available() {
            return Err(Error::BackendUnavailable {
                backend: name.to_string(),
                needs: crate::cpu::missing(b.features()),
            });
        }
        Ok(b)
    }
}

/// A decrypted and authenticated message. Secrets are wiped on drop.
pub struct Opened {
    /// The secret message number (empty in no-SMN mode).
    pub nsec: Zeroizing<Vec<u8>>,
    pub plaintext: Zeroizing<Vec<u8>>,
}

impl fmt::Debug for Opened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opened")
            .field("nsec", &format_args!("<{} bytes>", self.nsec.len()))
            .field(
                "plaintext",
                &format_args!("<{} bytes>", self.plaintext.len()),
            )
            .finish()
    }
}

/// One message to encrypt in a multi-stream call. `nsec: None` is ref2's no-SMN mode.
#[derive(Clone, Copy)]
pub struct Message<'a> {
    pub npub: &'a [u8],
    pub nsec: Option<&'a [u8]>,
    pub ad: &'a [u8],
    pub plaintext: &'a [u8],
}

/// One ciphertext to decrypt in a multi-stream call. `with_nsec: false` is ref2's no-SMN
/// mode (`C || T`, no encrypted SMN in front).
#[derive(Clone, Copy)]
pub struct Ciphertext<'a> {
    pub npub: &'a [u8],
    pub ad: &'a [u8],
    pub ciphertext: &'a [u8],
    pub with_nsec: bool,
}

/// π-Cipher with a key: encrypts and decrypts one message or many at once.
pub struct PiCipher {
    variant: PiVariant,
    key: Zeroizing<Vec<u8>>,
    backend: PiBackend,
}

impl fmt::Debug for PiCipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PiCipher")
            .field("variant", &self.variant)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

/// Compares two tags in time independent of where they differ (no early exit).
pub fn tags_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    core::hint::black_box(diff) == 0
}

impl PiCipher {
    /// With the fastest backend this CPU runs.
    pub fn new(variant: PiVariant, key: &[u8]) -> Result<Self> {
        Self::with_backend(variant, key, None)
    }

    /// With a named backend (`ref`, `portable`, `avx2`, `avx512`), or the best for `None`.
    pub fn with_backend(variant: PiVariant, key: &[u8], backend: Option<&str>) -> Result<Self> {
        if key.len() != variant.key_len() {
            return Err(Error::KeyLength {
                cipher: variant.name(),
                expected: variant.key_len(),
                got: key.len(),
            });
        }
        Ok(PiCipher {
            variant,
            key: Zeroizing::new(key.to_vec()),
            backend: PiBackend::select(backend)?,
        })
    }

    pub fn variant(&self) -> PiVariant {
        self.variant
    }

    pub fn backend(&self) -> PiBackend {
        self.backend
    }

    fn check_npub(&self, npub: &[u8]) -> Result<()> {
        let v = self.variant;
        if npub.len() != v.npub_len() {
            return Err(Error::NpubLength {
                variant: v.name(),
                expected: v.npub_len(),
                got: npub.len(),
            });
        }
        Ok(())
    }

    fn check_nsec(&self, nsec: &[u8]) -> Result<()> {
        let v = self.variant;
        if nsec.len() != v.nsec_len() {
            return Err(Error::NsecLength {
                variant: v.name(),
                expected: v.nsec_len(),
                got: nsec.len(),
            });
        }
        Ok(())
    }

    /// Encrypts to SUPERCOP's `E(nsec) || C || T`.
    pub fn encrypt(&self, npub: &[u8], nsec: &[u8], ad: &[u8], msg: &[u8]) -> Result<Vec<u8>> {
        self.encrypt_message(&Message {
            npub,
            nsec: Some(nsec),
            ad,
            plaintext: msg,
        })
    }

    /// Decrypts SUPERCOP's `E(nsec) || C || T`; a wrong tag is [`Error::TagMismatch`] and
    /// releases nothing.
    pub fn decrypt(&self, npub: &[u8], ad: &[u8], c: &[u8]) -> Result<Opened> {
        self.decrypt_message(&Ciphertext {
            npub,
            ad,
            ciphertext: c,
            with_nsec: true,
        })
    }

    /// Encrypts one message (with or without an SMN).
    pub fn encrypt_message(&self, m: &Message<'_>) -> Result<Vec<u8>> {
        Ok(self.encrypt_many(std::slice::from_ref(m))?.pop().unwrap())
    }

    /// Decrypts one ciphertext (with or without an SMN).
    pub fn decrypt_message(&self, c: &Ciphertext<'_>) -> Result<Opened> {
        self.decrypt_many(std::slice::from_ref(c))?.pop().unwrap()
    }

    /// Encrypts many messages together (multi-stream): the result equals encrypting each on
    /// its own. Any length error fails the whole call.
    pub fn encrypt_many(&self, msgs: &[Message<'_>]) -> Result<Vec<Vec<u8>>> {
        let r = self.variant.rate();
        for m in msgs {
            self.check_npub(m.npub)?;
            if let Some(n) = m.nsec {
                self.check_nsec(n)?;
            }
        }
        if self.backend == PiBackend::Reference {
            return Ok(msgs
                .iter()
                .map(|m| {
                    dispatch_ref_enc(self.variant, &self.key, m.npub, m.nsec, m.ad, m.plaintext)
                })
                .collect());
        }
        let mut bufs: Vec<Vec<u8>> = msgs
            .iter()
            .map(|m| {
                let smn = if m.nsec.is_some() { r } else { 0 };
                vec![0u8; smn + m.plaintext.len() + r]
            })
            .collect();
        let jobs: Vec<Job<'_>> = msgs
            .iter()
            .map(|m| Job {
                key: &self.key,
                npub: m.npub,
                smn: m.nsec,
                ad: m.ad,
                data: m.plaintext,
            })
            .collect();
        let mut outs: Vec<Out<'_>> = bufs
            .iter_mut()
            .zip(msgs)
            .map(|(b, m)| {
                let (smn, rest) = b.split_at_mut(if m.nsec.is_some() { r } else { 0 });
                let (data, tag) = rest.split_at_mut(m.plaintext.len());
                Out { smn, data, tag }
            })
            .collect();
        run_fast(self.variant, self.backend, false, &jobs, &mut outs);
        drop(outs);
        Ok(bufs)
    }

    /// Decrypts many ciphertexts together (multi-stream). Length errors fail the whole call;
    /// each message's tag is checked on its own, so one forgery does not block the others.
    pub fn decrypt_many(&self, cts: &[Ciphertext<'_>]) -> Result<Vec<Result<Opened>>> {
        let v = self.variant;
        let r = v.rate();
        for c in cts {
            self.check_npub(c.npub)?;
            let min = if c.with_nsec { 2 * r } else { r };
            if c.ciphertext.len() < min {
                return Err(Error::CiphertextTooShort {
                    variant: v.name(),
                    min,
                    got: c.ciphertext.len(),
                });
            }
        }
        let sealed: Vec<Sealed> = if self.backend == PiBackend::Reference {
            cts.iter()
                .map(|c| dispatch_ref_dec(v, &self.key, c.npub, c.with_nsec, c.ad, c.ciphertext))
                .collect()
        } else {
            let mut sealed: Vec<Sealed> = cts
                .iter()
                .map(|c| {
                    let smn = if c.with_nsec { r } else { 0 };
                    Sealed::new(smn, c.ciphertext.len() - smn - r, r)
                })
                .collect();
            let jobs: Vec<Job<'_>> = cts
                .iter()
                .map(|c| {
                    let smn = if c.with_nsec { r } else { 0 };
                    let body = &c.ciphertext[..c.ciphertext.len() - r];
                    Job {
                        key: &self.key,
                        npub: c.npub,
                        smn: c.with_nsec.then(|| &body[..smn]),
                        ad: c.ad,
                        data: &body[smn..],
                    }
                })
                .collect();
            let mut outs: Vec<Out<'_>> = sealed
                .iter_mut()
                .map(|s| Out {
                    smn: &mut s.nsec[..],
                    data: &mut s.plaintext[..],
                    tag: &mut s.tag[..],
                })
                .collect();
            run_fast(v, self.backend, true, &jobs, &mut outs);
            drop(outs);
            sealed
        };
        Ok(sealed
            .into_iter()
            .zip(cts)
            .map(|(mut s, c)| {
                let tag = &c.ciphertext[c.ciphertext.len() - r..];
                if tags_equal(&s.tag, tag) {
                    Ok(Opened {
                        nsec: std::mem::take(&mut s.nsec),
                        plaintext: std::mem::take(&mut s.plaintext),
                    })
                } else {
                    // `Sealed` wipes the unauthenticated plaintext and SMN as it drops.
                    Err(Error::TagMismatch)
                }
            })
            .collect())
    }
}

fn dispatch_ref_enc(
    v: PiVariant,
    key: &[u8],
    npub: &[u8],
    nsec: Option<&[u8]>,
    ad: &[u8],
    msg: &[u8],
) -> Vec<u8> {
    use pi::reference::encrypt;
    match v.word_bits() {
        16 => encrypt::<u16>(key, npub, nsec, ad, msg),
        32 => encrypt::<u32>(key, npub, nsec, ad, msg),
        _ => encrypt::<u64>(key, npub, nsec, ad, msg),
    }
}

fn dispatch_ref_dec(
    v: PiVariant,
    key: &[u8],
    npub: &[u8],
    with_nsec: bool,
    ad: &[u8],
    c: &[u8],
) -> Sealed {
    use pi::reference::decrypt;
    match v.word_bits() {
        16 => decrypt::<u16>(key, npub, with_nsec, ad, c),
        32 => decrypt::<u32>(key, npub, with_nsec, ad, c),
        _ => decrypt::<u64>(key, npub, with_nsec, ad, c),
    }
}

/// Runs the lane engine with the backend's kernels for the variant's word size.
fn run_fast(v: PiVariant, b: PiBackend, decrypt: bool, jobs: &[Job<'_>], outs: &mut [Out<'_>]) {
    match v.word_bits() {
        16 => run_word::<u16, 16>(b, blocks_for(b), decrypt, jobs, outs),
        32 => run_word::<u32, 8>(b, blocks_for(b), decrypt, jobs, outs),
        _ => run_word::<u64, 4>(b, blocks_for(b), decrypt, jobs, outs),
    }
}

/// The whole-step kernels for runs of one message's blocks (AVX2 and AVX-512), widest
/// first.
#[cfg(target_arch = "x86_64")]
fn blocks_for<W: pi::x86::WideWord>(b: PiBackend) -> WholeSteps<W> {
    match b {
        PiBackend::Avx512 => [Some(W::AVX512), Some(W::AVX2)],
        PiBackend::Avx2 => [Some(W::AVX2), None],
        _ => [None, None],
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn blocks_for<W: Word>(_: PiBackend) -> WholeSteps<W> {
    [None, None]
}

/// Lanes per kernel call: `L2` for AVX2 and AVX-512 (one 256-bit register per word); the
/// portable backend runs one state at a time (see [`steps_portable`]). `blocks` (the
/// whole-step kernels of the AVX2 and AVX-512 backends) has no use off x86-64.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn run_word<W: Word, const L2: usize>(
    b: PiBackend,
    blocks: WholeSteps<W>,
    decrypt: bool,
    jobs: &[Job<'_>],
    outs: &mut [Out<'_>],
) {
    use pi::lanes::pi_portable;
    match b {
        #[cfg(target_arch = "x86_64")]
        PiBackend::Avx2 | PiBackend::Avx512 => {
            engine::run::<W, L2>(pi::x86::pi_avx2::<W, L2>, blocks, decrypt, jobs, outs)
        }
        // One lane: below the wide threshold, so every π is the scalar `pi_single`.
        _ => engine::run::<W, 1>(pi_portable::<W, 1>, [None, None], decrypt, jobs, outs),
    }
}

/// The incremental API's π for serial steps and its bulk path, for a backend.
#[cfg(target_arch = "x86_64")]
fn stream_fns<W: pi::x86::WideWord>(b: PiBackend) -> (fn(&mut [W; 16]), pi::stream::Steps<W>) {
    match b {
        PiBackend::Reference => (pi::reference::pi::<W>, steps_ref::<W>),
        PiBackend::Portable => (pi::lanes::pi_single::<W>, steps_portable::<W>),
        PiBackend::Avx2 => (pi::lanes::pi_single::<W>, steps_vector::<W, false>),
        PiBackend::Avx512 => (pi::lanes::pi_single::<W>, steps_vector::<W, true>),
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn stream_fns<W: Word>(b: PiBackend) -> (fn(&mut [W; 16]), pi::stream::Steps<W>) {
    match b {
        PiBackend::Reference => (pi::reference::pi::<W>, steps_ref::<W>),
        _ => (pi::lanes::pi_single::<W>, steps_portable::<W>),
    }
}

/// Lanes of the AVX2 and AVX-512 lane kernels: one 256- or 512-bit register per word.
#[cfg(target_arch = "x86_64")]
const fn lanes_of<W: Word>(bits: usize) -> usize {
    bits / (8 * W::BYTES)
}

fn steps_ref<W: Word>(m: u8, c: &[W; 16], ctr: u64, d: &[u8], o: &mut [u8], t: &mut [W; 8]) {
    // One lane, always below the lane threshold: every block on the reference π.
    engine::steps::<W, 1>(
        pi::lanes::pi_portable::<W, 1>,
        [None, None],
        pi::reference::pi::<W>,
        m,
        c,
        ctr,
        d,
        o,
        t,
    )
}

/// The portable bulk path: the scalar π block by block. The word-sliced lane kernel,
/// compiled for the baseline (SSE2 on x86-64), came out as scalar code with most words
/// spilled: measured on AMD Zen 3 (2026-11-26, 16 KiB, one message) 13.4 / 31 / 86 c/B for
/// π64 / π32 / π16 against 8.0 / 16.8 / 35 for the scalar π (5.9 / 11.9 / 24.5 since its
/// rounds are written out, [`pi::lanes`]); two states interleaved as
/// scalars (more ILP, more spills) measured no better. On ARM64 (31 registers, native
/// rotates) the scalar π fits the register file better still.
fn steps_portable<W: Word>(m: u8, c: &[W; 16], ctr: u64, d: &[u8], o: &mut [u8], t: &mut [W; 8]) {
    lanes_steps::<W, 1>(
        pi::lanes::pi_portable::<W, 1>,
        [None, None],
        m,
        c,
        ctr,
        d,
        o,
        t,
    )
}

/// The AVX2 and AVX-512 bulk paths: the backend's whole-step kernels (widest first) do
/// the batches, and the tail under one batch goes through the AVX2 lane kernel.
#[cfg(target_arch = "x86_64")]
fn steps_vector<W: pi::x86::WideWord, const AVX512: bool>(
    m: u8,
    c: &[W; 16],
    ctr: u64,
    d: &[u8],
    o: &mut [u8],
    t: &mut [W; 8],
) {
    let backend = if AVX512 {
        PiBackend::Avx512
    } else {
        PiBackend::Avx2
    };
    let blocks = blocks_for::<W>(backend);
    use pi::x86::pi_avx2;
    match lanes_of::<W>(256) {
        16 => lanes_steps::<W, 16>(pi_avx2::<W, 16>, blocks, m, c, ctr, d, o, t),
        8 => lanes_steps::<W, 8>(pi_avx2::<W, 8>, blocks, m, c, ctr, d, o, t),
        _ => lanes_steps::<W, 4>(pi_avx2::<W, 4>, blocks, m, c, ctr, d, o, t),
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lanes_steps<W: Word, const L: usize>(
    kernel: engine::Kernel<W, L>,
    blocks: WholeSteps<W>,
    m: u8,
    c: &[W; 16],
    ctr: u64,
    d: &[u8],
    o: &mut [u8],
    t: &mut [W; 8],
) {
    engine::steps::<W, L>(
        kernel,
        blocks,
        pi::lanes::pi_single::<W>,
        m,
        c,
        ctr,
        d,
        o,
        t,
    )
}
