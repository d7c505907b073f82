//! ctgrind: run a constant-time backend under valgrind memcheck with every secret (key,
//! data, IV, nonce, tag) marked undefined. Memcheck then reports each conditional jump
//! and each memory address computed from a secret — the two ways code leaks through
//! timing — while arithmetic on secrets stays silent.
//!
//! A target keys its backend under the secret key (key setup is checked too), runs a few
//! blocks through each mode, and only at the end declassifies its outputs to check that
//! they round-trip. The one public decision inside a call — the PKCS#7 verdict, the
//! π-Cipher tag verdict — is allowed at its own source line (see [`crate::allow`]).

use bitweave::aead::gcm::{AesGcm, GhashBackend};
use bitweave::aead::{tags_equal, Ciphertext, PiCipher, PiVariant};
use bitweave::hazmat::registry;
use bitweave::mode::padding;
use bitweave::{BlockCipher, Cipher, CipherKind};
use bitweave::{Error, Mode, ModeParams};
use rand::rngs::StdRng;
use rand::RngCore;

use crate::vg;

/// What a target checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A block cipher on a named backend, in several modes.
    Block(CipherKind, &'static str),
    /// π-Cipher on a named backend: encrypt, decrypt, forged-tag decrypt, `tags_equal`.
    Pi(PiVariant, &'static str),
    /// AES-256-GCM on a named GHASH backend and AES backend (`None`: the default):
    /// encrypt, decrypt, forged-tag decrypt.
    Gcm(GhashBackend, Option<&'static str>),
    /// A deliberately leaky function: memcheck must report it.
    Leak(&'static str),
}

/// One ctgrind target.
#[derive(Clone, Debug)]
pub struct Target {
    /// `cipher/backend`, `pi-variant/backend`, `aes-256-gcm/ghash-backend` or `leak/what`.
    pub name: String,
    pub kind: Kind,
}

/// The leaky controls: a secret-indexed table, an early-exit comparison, the smallest
/// of each kind (one secret branch, one lookup into a 16-entry table), and the library's
/// own table-based `soft` backends (not constant-time by design).
const LEAKS: [&str; 4] = ["table", "compare", "branch", "table16"];

/// Every target: each constant-time block-cipher backend and π-Cipher backend in the
/// registry (whether or not this CPU, or valgrind's, runs it), the library's `soft`
/// backends, and the leaky controls.
pub fn targets() -> Vec<Target> {
    let mut v = Vec::new();
    for b in registry::all() {
        let name = format!("{}/{}", b.cipher.name(), b.name);
        v.push(Target {
            name,
            kind: Kind::Block(b.cipher, b.name),
        });
    }
    for var in PiVariant::ALL {
        for b in bitweave::aead::PiBackend::ALL {
            v.push(Target {
                name: format!("{}/{}", var.name(), b.name()),
                kind: Kind::Pi(var, b.name()),
            });
        }
    }
    for b in GhashBackend::ALL {
        v.push(Target {
            name: format!("aes-256-gcm/ghash-{}", b.name()),
            kind: Kind::Gcm(b, None),
        });
    }
    // The AES-NI tier's loop, AES-NI and PCLMULQDQ interleaved.
    v.push(Target {
        name: "aes-256-gcm/stitched-aesni-clmul128".into(),
        kind: Kind::Gcm(GhashBackend::Clmul128, Some("aesni")),
    });
    for l in LEAKS {
        v.push(Target {
            name: format!("leak/{l}"),
            kind: Kind::Leak(l),
        });
    }
    v
}

/// Whether the target's backend can run on this CPU (valgrind's synthetic CPU when run
/// under valgrind); `Err` names what is missing.
pub fn runnable(t: &Target) -> Result<(), String> {
    match t.kind {
        Kind::Block(kind, name) => registry::all()
            .iter()
            .find(|b| b.cipher == kind && b.name == name)
            .map_or(Err("unknown backend".into()), |b| {
                if b.available() {
                    Ok(())
                } else {
                    Err(b.needs())
                }
            }),
        Kind::Pi(_, name) => bitweave::aead::PiBackend::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .map_or(Err("unknown backend".into()), |b| {
                if b.available() {
                    Ok(())
                } else {
                    Err(b.needs())
                }
            }),
        Kind::Gcm(b, aes) => {
            if !b.available() {
                Err(b.needs().into())
            } else if let Some(aes) = aes {
                runnable(&Target {
                    name: String::new(),
                    kind: Kind::Block(CipherKind::Aes256, aes),
                })
            } else {
                Ok(())
            }
        }
        Kind::Leak(_) => Ok(()),
    }
}

/// Runs one target with secrets marked. `Err` is a harness failure (wrong backend,
/// marking had no effect, wrong result), distinct from memcheck's reports.
pub fn run(t: &Target, rng: &mut StdRng) -> Result<(), String> {
    match t.kind {
        Kind::Block(kind, backend) => run_block(kind, backend, rng),
        Kind::Pi(var, backend) => run_pi(var, backend, rng),
        Kind::Gcm(backend, aes) => run_gcm(backend, aes, rng),
        Kind::Leak(what) => run_leak(what, rng),
    }
}

/// Random bytes, marked secret; fails when the marking did not take (not under valgrind).
fn secret(rng: &mut StdRng, len: usize) -> Result<Vec<u8>, String> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    vg::secret(&v);
    if len > 0 && !vg::is_secret(&v) {
        return Err("marking a secret had no effect: not running under valgrind memcheck".into());
    }
    Ok(v)
}

/// Checks that memcheck sees an output as wholly secret: proof that the marking flowed
/// through the backend (a clean run where it did not would prove nothing).
fn tainted(what: &str, out: &[u8]) -> Result<(), String> {
    if vg::is_secret(out) {
        Ok(())
    } else {
        Err(format!(
            "{what}: output not wholly secret to memcheck (marking lost)"
        ))
    }
}

/// Compares after declassifying both sides: the check of a result, not part of the code
/// under test.
fn same(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    vg::declassify(got);
    vg::declassify(want);
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: wrong result"))
    }
}

fn lib(e: Error) -> String {
    e.to_string()
}

/// Blocks of data per mode: a few, because valgrind runs ~50x slower and a bitsliced
/// backend pads every call to its full width anyway.
const BLOCKS: usize = 3;

fn run_block(kind: CipherKind, backend: &str, rng: &mut StdRng) -> Result<(), String> {
    let key = secret(rng, kind.key_len())?;
    // Key setup runs under the secret key.
    let cipher = Cipher::with_backend(kind, &key, Some(backend))
        .map_err(lib)?
        .with_threads(1);
    if cipher.backend() != backend {
        return Err(format!(
            "asked for backend {backend}, running {}",
            cipher.backend()
        ));
    }
    let bs = kind.block_size();

    // Raw batches: encrypt and decrypt in place.
    let pt = secret(rng, BLOCKS * bs)?;
    let mut buf = pt.clone();
    cipher.encrypt_blocks(&mut buf);
    tainted("blocks", &buf)?;
    cipher.decrypt_blocks(&mut buf);
    same("blocks", &buf, &pt)?;

    // Modes without padding: ECB, CBC, CFB, OFB, CTR (with a partial block for the
    // stream modes), CBC with 4 interleaved chains, CFB8 and CFB1; CTR and CBC once more
    // at 40 blocks, past the kernels' whole register groups (AES-NI's CTR builds a group's
    // counters from the IV in a way a 3-block call never reaches); CTR at one whole and
    // one partial block (AES's one-block kernel).
    let cases: [(Mode, usize, usize); 12] = [
        (Mode::Ecb, 1, BLOCKS * bs),
        (Mode::Cbc, 1, BLOCKS * bs),
        (Mode::Cfb, 1, BLOCKS * bs + 5),
        (Mode::Ofb, 1, BLOCKS * bs + 5),
        (Mode::Ctr, 1, BLOCKS * bs + 5),
        (Mode::Ctr, 1, 40 * bs + 5),
        (Mode::Ctr, 1, bs),
        (Mode::Ctr, 1, 5),
        (Mode::Cbc, 1, 40 * bs),
        (Mode::Cbc, 4, 8 * bs),
        // One cipher call per byte / per bit: a few of them.
        (Mode::Cfb8, 1, 5),
        (Mode::Cfb1, 1, 2),
    ];
    for (mode, n, len) in cases {
        let params = ModeParams::new(mode).interleave(n).padding(false);
        let iv = secret(rng, params.iv_len(bs))?;
        let pt = secret(rng, len)?;
        let ct = params.encrypt_all(&cipher, &iv, &pt).map_err(lib)?;
        tainted(mode.name(), &ct)?;
        let back = params.decrypt_all(&cipher, &iv, &ct).map_err(lib)?;
        same(&format!("{}-x{n}", mode.name()), &back, &pt)?;
    }

    // CBC with PKCS#7: encryption pads; decryption is the library's unpadded CBC
    // decryption followed by its padding check, whose verdict and length are public.
    let params = ModeParams::new(Mode::Cbc);
    let iv = secret(rng, bs)?;
    let pt = secret(rng, 2 * bs + 3)?;
    let ct = params.encrypt_all(&cipher, &iv, &pt).map_err(lib)?;
    let mut padded = params
        .padding(false)
        .decrypt_all(&cipher, &iv, &ct)
        .map_err(lib)?;
    let last = padded.len() - bs;
    let verdict = padding::unpad_len(&padded[last..]);
    vg::declassify_ref(&verdict);
    match verdict {
        Ok(n) => same("cbc-pkcs7", &padded[..padded.len() - n], &pt)?,
        Err(_) => return Err("cbc-pkcs7: valid padding rejected".into()),
    }
    // A bad pad: the last byte made a secret value above 0x80 (too long a pad).
    let end = padded.len() - 1;
    padded[end] = secret(rng, 1)?[0] | 0x80;
    let verdict = padding::unpad_len(&padded[last..]);
    vg::declassify_ref(&verdict);
    if verdict.is_ok() {
        return Err("cbc-pkcs7: bad padding accepted".into());
    }
    Ok(())
}

fn run_pi(var: PiVariant, backend: &str, rng: &mut StdRng) -> Result<(), String> {
    let key = secret(rng, var.key_len())?;
    let pi = PiCipher::with_backend(var, &key, Some(backend)).map_err(lib)?;
    if pi.backend().name() != backend {
        return Err(format!(
            "asked for backend {backend}, running {}",
            pi.backend().name()
        ));
    }
    let r = var.rate();
    let npub = secret(rng, var.npub_len())?;
    let nsec = secret(rng, var.nsec_len())?;
    // 19 full blocks and a tail: one or more batches of the AVX2 whole-step kernel at
    // every word size (16 blocks for π16), then 4 lanes (3 full blocks and the padded
    // tail) — enough for the lane kernel at every word size (it takes 2 or more, 4 or
    // more for π16).
    let ad = secret(rng, 19 * r + 3)?;
    let msg = secret(rng, 19 * r + 5)?;
    let c = pi.encrypt(&npub, &nsec, &ad, &msg).map_err(lib)?;
    tainted("pi", &c)?;

    // Decryption of the genuine ciphertext: the tag verdict is the public decision.
    let opened = pi.decrypt(&npub, &ad, &c);
    vg::declassify_ref(&opened);
    match opened {
        Ok(o) => {
            same("pi plaintext", &o.plaintext, &msg)?;
            same("pi nsec", &o.nsec, &nsec)?;
        }
        _ => return Err("pi: genuine ciphertext rejected".into()),
    }

    // A forged tag (last byte flipped): the failure path must not leak either.
    let mut forged = c.clone();
    let last = forged.len() - 1;
    forged[last] ^= 1;
    let opened = pi.decrypt(&npub, &ad, &forged);
    vg::declassify_ref(&opened);
    if opened.is_ok() {
        return Err("pi: forged tag accepted".into());
    }

    // Both into caller buffers together: the genuine one opens, the forged one's buffer
    // is wiped; only the verdicts are public.
    let cts = [&c, &forged].map(|ct| Ciphertext {
        npub: &npub,
        ad: &ad,
        ciphertext: ct,
        with_nsec: true,
    });
    let mut bufs = cts.map(|ct| vec![0xa5u8; pi.opened_len(&ct)]);
    let [b0, b1] = &mut bufs;
    let verdicts = pi
        .decrypt_many_into(&cts, &mut [&mut b0[..], &mut b1[..]])
        .map_err(lib)?;
    verdicts.iter().for_each(vg::declassify_ref);
    if !matches!(verdicts[..], [Ok(()), Err(_)]) {
        return Err("pi decrypt_many_into: wrong verdicts".into());
    }
    same("pi into nsec", &bufs[0][..r], &nsec)?;
    same("pi into plaintext", &bufs[0][r..], &msg)?;
    same("pi into forged, wiped", &bufs[1], &vec![0; bufs[1].len()])?;

    // The tag comparison itself, on secret tags differing only in the last byte.
    let t1 = c[c.len() - r..].to_vec();
    let t2 = forged[forged.len() - r..].to_vec();
    let eq_same = vg::declassify_value(tags_equal(&t1, &t1));
    let eq_diff = vg::declassify_value(tags_equal(&t1, &t2));
    if !eq_same || eq_diff {
        return Err("tags_equal: wrong verdict".into());
    }
    Ok(())
}

fn run_gcm(backend: GhashBackend, aes: Option<&str>, rng: &mut StdRng) -> Result<(), String> {
    let key = secret(rng, 32)?;
    let gcm = AesGcm::with_backends(&key, backend, aes).map_err(lib)?;
    if aes == Some("aesni") && backend == GhashBackend::Clmul128 && !gcm.is_stitched() {
        return Err("gcm: aesni with clmul128 did not take the stitched loop".into());
    }
    let nonce: [u8; 12] = secret(rng, 12)?.try_into().expect("12 bytes");
    // Two aggregated groups of eight blocks, single blocks and a partial one, in the AAD
    // and the text.
    let aad = secret(rng, 16 * 19 + 3)?;
    let msg = secret(rng, 16 * 19 + 5)?;
    let mut buf = msg.clone();
    let tag = gcm.encrypt_in_place(&nonce, &aad, &mut buf).map_err(lib)?;
    tainted("gcm", &buf)?;
    tainted("gcm tag", &tag)?;
    // The genuine ciphertext: the tag verdict is the public decision.
    let opened = gcm.decrypt_in_place(&nonce, &aad, &mut buf, &tag);
    vg::declassify_ref(&opened);
    if opened.is_err() {
        return Err("gcm: genuine ciphertext rejected".into());
    }
    same("gcm plaintext", &buf, &msg)?;
    // A forged tag: rejected, the ciphertext restored.
    let mut forged = tag;
    forged[0] ^= 1;
    gcm.encrypt_in_place(&nonce, &aad, &mut buf).map_err(lib)?;
    let opened = gcm.decrypt_in_place(&nonce, &aad, &mut buf, &forged);
    vg::declassify_ref(&opened);
    if opened.is_ok() {
        return Err("gcm: forged tag accepted".into());
    }
    Ok(())
}

fn run_leak(what: &str, rng: &mut StdRng) -> Result<(), String> {
    let s = secret(rng, 32)?;
    match what {
        "table" => {
            let table = vec![1u8; crate::leaky::TABLE_BYTES];
            std::hint::black_box(crate::leaky::table_lookup(&table, &s));
        }
        "branch" => {
            std::hint::black_box(crate::leaky::one_secret_branch(s[0], 7));
        }
        "table16" => {
            let (rows, row) = crate::leaky::SMALL_TABLE;
            let table = vec![1u8; rows * row];
            std::hint::black_box(crate::leaky::small_table_lookup(&table, s[0]));
        }
        _ => {
            let public = vec![0u8; 32];
            std::hint::black_box(crate::leaky::early_exit_eq(&s, &public));
        }
    }
    Ok(())
}
