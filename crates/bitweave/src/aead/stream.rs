//! Incremental π-Cipher: AD and message in pieces of any size, memory bounded by one block.
//!
//! Sealing: [`PiCipher::sealer`] → [`Sealer::ad`]… → [`Sealer::start`] (writes `E(nsec)`)
//! → [`Sealing::update`]… → [`Sealing::finish`] (the last ciphertext bytes and the tag).
//! The bytes written equal [`PiCipher::encrypt_message`]'s for the same inputs.
//!
//! Opening: [`PiCipher::opener`] → [`Opener::ad`]… → [`Opener::start`] →
//! [`Opening::update_unverified`]… → [`Opening::finish`]. The plaintext comes out before
//! the tag is known, so it is **unverified**: the caller must hold it back (a temporary
//! file, say) and release it only if `finish` succeeds, discarding it otherwise.
#![deny(unsafe_code)]

use zeroize::Zeroizing;

use super::pi::engine::{ABSORB, DECRYPT, ENCRYPT};
use super::pi::stream::Core;
use super::{tags_equal, PiCipher, PiVariant};
use crate::error::{Error, Result};

enum Inner {
    W16(Core<u16>),
    W32(Core<u32>),
    W64(Core<u64>),
}

macro_rules! each {
    ($inner:expr, $c:ident => $e:expr) => {
        match $inner {
            Inner::W16($c) => $e,
            Inner::W32($c) => $e,
            Inner::W64($c) => $e,
        }
    };
}

impl Inner {
    fn new(pi: &PiCipher, npub: &[u8]) -> Self {
        let (key, b) = (&pi.key[..], pi.backend);
        match pi.variant.word_bits() {
            16 => {
                let (p, s) = super::backend::stream_fns::<u16>(b);
                Inner::W16(Core::new(key, npub, p, s))
            }
            32 => {
                let (p, s) = super::backend::stream_fns::<u32>(b);
                Inner::W32(Core::new(key, npub, p, s))
            }
            _ => {
                let (p, s) = super::backend::stream_fns::<u64>(b);
                Inner::W64(Core::new(key, npub, p, s))
            }
        }
    }
}

/// Sealing, AD phase.
pub struct Sealer {
    inner: Inner,
    variant: PiVariant,
    nsec: Option<Zeroizing<Vec<u8>>>,
}

/// Sealing, message phase.
pub struct Sealing {
    inner: Inner,
    variant: PiVariant,
}

/// Opening, AD phase.
pub struct Opener {
    inner: Inner,
    variant: PiVariant,
    with_nsec: bool,
}

/// Opening, ciphertext phase: the leading `E(nsec)` and the trailing tag are split off
/// the stream as it comes.
pub struct Opening {
    inner: Inner,
    variant: PiVariant,
    with_nsec: bool,
    head: Zeroizing<Vec<u8>>,
    nsec: Zeroizing<Vec<u8>>,
    /// The last `tag_len` bytes seen so far: the tag if the stream ends here.
    hold: Vec<u8>,
    total: usize,
}

impl PiCipher {
    /// Starts sealing one message; `nsec: None` is ref2's no-SMN mode.
    pub fn sealer(&self, npub: &[u8], nsec: Option<&[u8]>) -> Result<Sealer> {
        self.check_npub(npub)?;
        if let Some(n) = nsec {
            self.check_nsec(n)?;
        }
        Ok(Sealer {
            inner: Inner::new(self, npub),
            variant: self.variant,
            nsec: nsec.map(|n| Zeroizing::new(n.to_vec())),
        })
    }

    /// Starts opening one ciphertext (`with_nsec: false` for `C || T` without `E(nsec)`).
    pub fn opener(&self, npub: &[u8], with_nsec: bool) -> Result<Opener> {
        self.check_npub(npub)?;
        Ok(Opener {
            inner: Inner::new(self, npub),
            variant: self.variant,
            with_nsec,
        })
    }
}

impl Sealer {
    /// Absorbs more associated data.
    pub fn ad(&mut self, ad: &[u8]) {
        each!(&mut self.inner, c => c.feed(ABSORB, ad, &mut Vec::new()));
    }

    /// Ends the AD; appends `E(nsec)` (if any) to `out`.
    pub fn start(mut self, out: &mut Vec<u8>) -> Sealing {
        let nsec = self.nsec.take();
        each!(&mut self.inner, c => {
            c.end(ABSORB, &mut Vec::new());
            c.fold();
            if let Some(n) = &nsec {
                c.smn(ENCRYPT, n, out);
            }
        });
        Sealing {
            inner: self.inner,
            variant: self.variant,
        }
    }
}

impl Sealing {
    /// Encrypts more plaintext; appends the ciphertext of every completed block.
    pub fn update(&mut self, msg: &[u8], out: &mut Vec<u8>) {
        each!(&mut self.inner, c => c.feed(ENCRYPT, msg, out));
    }

    /// Appends the last ciphertext bytes and the tag.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        let mut tag = vec![0u8; self.variant.tag_len()];
        each!(&mut self.inner, c => {
            c.end(ENCRYPT, out);
            c.tag(&mut tag);
        });
        out.extend_from_slice(&tag);
    }
}

impl Opener {
    /// Absorbs more associated data.
    pub fn ad(&mut self, ad: &[u8]) {
        each!(&mut self.inner, c => c.feed(ABSORB, ad, &mut Vec::new()));
    }

    /// Ends the AD.
    pub fn start(mut self) -> Opening {
        each!(&mut self.inner, c => {
            c.end(ABSORB, &mut Vec::new());
            c.fold();
        });
        Opening {
            inner: self.inner,
            variant: self.variant,
            with_nsec: self.with_nsec,
            head: Zeroizing::new(Vec::new()),
            nsec: Zeroizing::new(Vec::new()),
            hold: Vec::new(),
            total: 0,
        }
    }
}

impl Opening {
    /// Decrypts more ciphertext (any split); appends plaintext that is **not yet
    /// authenticated**: release it only after [`finish`](Self::finish) succeeds.
    pub fn update_unverified(&mut self, mut c: &[u8], out: &mut Vec<u8>) {
        self.total += c.len();
        let r = self.variant.rate();
        if self.with_nsec && self.head.len() < r {
            let take = (r - self.head.len()).min(c.len());
            self.head.extend_from_slice(&c[..take]);
            c = &c[take..];
            if self.head.len() < r {
                return;
            }
            let (head, nsec) = (&self.head, &mut self.nsec);
            let mut n = Vec::with_capacity(r);
            each!(&mut self.inner, core => core.smn(DECRYPT, head, &mut n));
            **nsec = n;
        }
        let keep = self.variant.tag_len();
        let avail = self.hold.len() + c.len();
        if avail <= keep {
            self.hold.extend_from_slice(c);
            return;
        }
        let release = avail - keep;
        let from_hold = release.min(self.hold.len());
        let held: Vec<u8> = self.hold.drain(..from_hold).collect();
        let from_c = release - from_hold;
        each!(&mut self.inner, core => {
            core.feed(DECRYPT, &held, out);
            core.feed(DECRYPT, &c[..from_c], out);
        });
        self.hold.extend_from_slice(&c[from_c..]);
    }

    /// Appends the last plaintext bytes and checks the tag: `Ok(nsec)` (empty without an
    /// SMN), or [`Error::TagMismatch`] — then everything this opening wrote is forged
    /// or corrupt and must be discarded.
    pub fn finish(mut self, out: &mut Vec<u8>) -> Result<Zeroizing<Vec<u8>>> {
        let v = self.variant;
        let min = if self.with_nsec {
            2 * v.rate()
        } else {
            v.rate()
        };
        if self.total < min {
            return Err(Error::CiphertextTooShort {
                variant: v.name(),
                min,
                got: self.total,
            });
        }
        let mut tag = Zeroizing::new(vec![0u8; v.tag_len()]);
        each!(&mut self.inner, c => {
            c.end(DECRYPT, out);
            c.tag(&mut tag);
        });
        if tags_equal(&tag, &self.hold) {
            Ok(std::mem::take(&mut self.nsec))
        } else {
            Err(Error::TagMismatch)
        }
    }
}
