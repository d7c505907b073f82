//! The keyed front type, [`PiCipher`]: one-shot and many-message encryption and
//! decryption, and the constant-time tag comparison.

use std::fmt;

use zeroize::Zeroizing;

use super::backend::{dispatch_ref_dec, dispatch_ref_enc, run_fast};
use super::pi::engine::{Job, Out};
use super::pi::Sealed;
use super::{PiBackend, PiVariant};
use crate::bytes::SecretVec;
use crate::error::{Error, Result};

/// A decrypted and authenticated message. Secrets are wiped on drop.
pub struct Opened {
    /// The secret message number (empty in no-SMN mode).
    pub nsec: SecretVec,
    pub plaintext: SecretVec,
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
    pub(super) variant: PiVariant,
    pub(super) key: Zeroizing<Vec<u8>>,
    pub(super) backend: PiBackend,
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

    pub(super) fn check_npub(&self, npub: &[u8]) -> Result<()> {
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

    pub(super) fn check_nsec(&self, nsec: &[u8]) -> Result<()> {
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

    /// The length of `m` encrypted: `E(nsec) || C || T`.
    pub fn sealed_len(&self, m: &Message<'_>) -> usize {
        let r = self.variant.rate();
        m.nsec.map_or(0, |_| r) + m.plaintext.len() + r
    }

    /// The length of `c` decrypted: the SMN (if any), then the plaintext.
    pub fn opened_len(&self, c: &Ciphertext<'_>) -> usize {
        c.ciphertext.len().saturating_sub(self.variant.rate())
    }

    /// Encrypts many messages together (multi-stream): the result equals encrypting each on
    /// its own. Any length error fails the whole call.
    pub fn encrypt_many(&self, msgs: &[Message<'_>]) -> Result<Vec<Vec<u8>>> {
        let mut bufs: Vec<Vec<u8>> = msgs.iter().map(|m| vec![0; self.sealed_len(m)]).collect();
        let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
        self.encrypt_many_into(msgs, &mut outs)?;
        Ok(bufs)
    }

    /// [`encrypt_many`](Self::encrypt_many) into the caller's buffers, `outs[i]` exactly
    /// [`sealed_len`](Self::sealed_len)`(msgs[i])` bytes. Buffers reused across calls cost
    /// nothing per call: freeing many fresh outputs at once lets glibc return the heap's
    /// top to the kernel, and the next call's writes fault every page back in (16
    /// messages of 16 KiB, π32 on AVX-512, Intel: 1.47 TSC c/B allocating, 0.96 here).
    pub fn encrypt_many_into(&self, msgs: &[Message<'_>], outs: &mut [&mut [u8]]) -> Result<()> {
        for m in msgs {
            self.check_npub(m.npub)?;
            if let Some(n) = m.nsec {
                self.check_nsec(n)?;
            }
        }
        check_outputs(outs, msgs.iter().map(|m| self.sealed_len(m)))?;
        if self.backend == PiBackend::Reference {
            for (m, out) in msgs.iter().zip(outs) {
                let sealed =
                    dispatch_ref_enc(self.variant, &self.key, m.npub, m.nsec, m.ad, m.plaintext);
                out.copy_from_slice(&sealed);
            }
            return Ok(());
        }
        let r = self.variant.rate();
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
        let mut outs: Vec<Out<'_>> = outs
            .iter_mut()
            .zip(msgs)
            .map(|(b, m)| {
                let (smn, rest) = b.split_at_mut(if m.nsec.is_some() { r } else { 0 });
                let (data, tag) = rest.split_at_mut(m.plaintext.len());
                Out { smn, data, tag }
            })
            .collect();
        run_fast(self.variant, self.backend, false, &jobs, &mut outs);
        Ok(())
    }

    /// Decrypts many ciphertexts together (multi-stream). Length errors fail the whole call;
    /// each message's tag is checked on its own, so one forgery does not block the others.
    pub fn decrypt_many(&self, cts: &[Ciphertext<'_>]) -> Result<Vec<Result<Opened>>> {
        self.check_ciphertexts(cts)?;
        let r = self.variant.rate();
        let sealed: Vec<Sealed> = if self.backend == PiBackend::Reference {
            cts.iter().map(|c| self.reference_open(c)).collect()
        } else {
            let mut sealed: Vec<Sealed> = cts
                .iter()
                .map(|c| {
                    let smn = if c.with_nsec { r } else { 0 };
                    Sealed::new(smn, c.ciphertext.len() - smn - r, r)
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
            self.open_fast(cts, &mut outs);
            drop(outs);
            sealed
        };
        Ok(sealed
            .into_iter()
            .zip(cts)
            .map(|(mut s, c)| {
                if tags_equal(&s.tag, tag_of(c, r)) {
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

    /// [`decrypt_many`](Self::decrypt_many) into the caller's buffers, `outs[i]` exactly
    /// [`opened_len`](Self::opened_len)`(cts[i])` bytes: the SMN (if any), then the
    /// plaintext. Where a tag fails, that entry is [`Error::TagMismatch`] and its buffer is
    /// wiped to zeros (unauthenticated output is never left behind).
    pub fn decrypt_many_into(
        &self,
        cts: &[Ciphertext<'_>],
        outs: &mut [&mut [u8]],
    ) -> Result<Vec<Result<()>>> {
        self.check_ciphertexts(cts)?;
        check_outputs(outs, cts.iter().map(|c| self.opened_len(c)))?;
        let r = self.variant.rate();
        // The computed tags, side by side.
        let mut tags = Zeroizing::new(vec![0u8; r * cts.len()]);
        if self.backend == PiBackend::Reference {
            for ((c, out), tag) in cts.iter().zip(outs.iter_mut()).zip(tags.chunks_mut(r)) {
                let s = self.reference_open(c);
                let (smn, data) = out.split_at_mut(s.nsec.len());
                smn.copy_from_slice(&s.nsec);
                data.copy_from_slice(&s.plaintext);
                tag.copy_from_slice(&s.tag);
            }
        } else {
            let mut jobs_out: Vec<Out<'_>> = outs
                .iter_mut()
                .zip(cts)
                .zip(tags.chunks_mut(r))
                .map(|((b, c), tag)| {
                    let (smn, data) = b.split_at_mut(if c.with_nsec { r } else { 0 });
                    Out { smn, data, tag }
                })
                .collect();
            self.open_fast(cts, &mut jobs_out);
        }
        Ok(outs
            .iter_mut()
            .zip(cts)
            .zip(tags.chunks(r))
            .map(|((out, c), tag)| {
                if tags_equal(tag, tag_of(c, r)) {
                    Ok(())
                } else {
                    crate::bytes::wipe(out);
                    Err(Error::TagMismatch)
                }
            })
            .collect())
    }

    /// Every ciphertext's npub length, and room for its encrypted SMN and tag.
    fn check_ciphertexts(&self, cts: &[Ciphertext<'_>]) -> Result<()> {
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
        Ok(())
    }

    /// Every ciphertext on the fast backend: SMN, plaintext and computed tag into `outs`.
    fn open_fast(&self, cts: &[Ciphertext<'_>], outs: &mut [Out<'_>]) {
        run_fast(
            self.variant,
            self.backend,
            true,
            &self.decrypt_jobs(cts),
            outs,
        );
    }

    /// One scheduler job per ciphertext: its encrypted SMN (if any) and body, tag left off.
    fn decrypt_jobs<'a>(&'a self, cts: &[Ciphertext<'a>]) -> Vec<Job<'a>> {
        let r = self.variant.rate();
        cts.iter()
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
            .collect()
    }

    /// One ciphertext on the reference code (its tag computed, not yet checked).
    fn reference_open(&self, c: &Ciphertext<'_>) -> Sealed {
        dispatch_ref_dec(
            self.variant,
            &self.key,
            c.npub,
            c.with_nsec,
            c.ad,
            c.ciphertext,
        )
    }
}

/// The tag at the end of a ciphertext whose length was checked.
fn tag_of<'c>(c: &Ciphertext<'c>, r: usize) -> &'c [u8] {
    &c.ciphertext[c.ciphertext.len() - r..]
}

/// One output buffer per message, each exactly the length it needs.
fn check_outputs(outs: &[&mut [u8]], needs: impl ExactSizeIterator<Item = usize>) -> Result<()> {
    if outs.len() != needs.len() {
        return Err(Error::OutputCount {
            outputs: outs.len(),
            messages: needs.len(),
        });
    }
    for (index, (out, expected)) in outs.iter().zip(needs).enumerate() {
        if out.len() != expected {
            return Err(Error::OutputLength {
                index,
                expected,
                got: out.len(),
            });
        }
    }
    Ok(())
}
