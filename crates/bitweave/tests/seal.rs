//! Sealed files: the format's vectors both ways (the AES ones come from an independent
//! Python implementation of docs/SEALED-FORMAT.md), round trips around every chunk and
//! window boundary, and every tampering case failing with its own error and no output.

use std::io::Read;

use bitweave::seal::{
    open, seal, seal_with_header, Argon2Params, Header, Kdf, OpenOptions, SealError, SealOptions,
    SealSuite, Secret, BODY_LEN, HEADER_LEN,
};
use serde::Deserialize;

/// Cheap Argon2 costs for tests (the header carries them, so opening needs nothing else).
const FAST: Argon2Params = Argon2Params {
    m_kib: 64,
    t: 1,
    p: 1,
};
const CHUNK_LOG2: u8 = 10;
const CHUNK: usize = 1 << CHUNK_LOG2;

fn opts(suite: SealSuite, threads: usize) -> SealOptions {
    SealOptions {
        suite,
        chunk_log2: CHUNK_LOG2,
        argon2: FAST,
        threads,
    }
}

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u32)
                .wrapping_mul(2654435761)
                .rotate_left(seed as u32 % 31) as u8
                ^ seed
        })
        .collect()
}

fn seal_bytes(pt: &[u8], secret: &Secret, o: &SealOptions) -> Vec<u8> {
    let mut out = Vec::new();
    let n = seal(pt, &mut out, secret, o).unwrap();
    assert_eq!(n, pt.len() as u64);
    out
}

fn open_bytes(sealed: &[u8], secret: &Secret, threads: usize) -> Result<Vec<u8>, SealError> {
    let mut out = Vec::new();
    let r = open(sealed, &mut out, secret, &OpenOptions { threads });
    match r {
        Ok(n) => {
            assert_eq!(n, out.len() as u64);
            Ok(out)
        }
        Err(e) => {
            // Every failure below is in the first window: nothing may have been written.
            assert!(out.is_empty(), "{e}: {} bytes written", out.len());
            Err(e)
        }
    }
}

fn key() -> Secret {
    Secret::key([0x5a; 32])
}

fn tag_len(suite: SealSuite) -> usize {
    suite.tag_len()
}

// ---- vectors ----

#[derive(Deserialize)]
struct Case {
    name: String,
    suite: String,
    kdf: String,
    key: Option<String>,
    passphrase: Option<String>,
    m_kib: Option<u32>,
    t: Option<u32>,
    p: Option<u32>,
    salt: String,
    nonce: String,
    chunk_log2: u8,
    plaintext: String,
    sealed: String,
}

fn load_cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/seal/seal-v1.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn case_header_and_secret(c: &Case) -> (Header, Secret) {
    let (kdf, secret) = match c.kdf.as_str() {
        "raw" => (
            Kdf::RawKey,
            Secret::key(
                hex::decode(c.key.as_ref().unwrap())
                    .unwrap()
                    .try_into()
                    .unwrap(),
            ),
        ),
        "argon2id" => (
            Kdf::Argon2id(Argon2Params {
                m_kib: c.m_kib.unwrap(),
                t: c.t.unwrap(),
                p: c.p.unwrap(),
            }),
            Secret::passphrase(c.passphrase.as_ref().unwrap().as_bytes()),
        ),
        other => panic!("unknown kdf {other}"),
    };
    let header = Header {
        suite: c.suite.parse().unwrap(),
        kdf,
        chunk_log2: c.chunk_log2,
        salt: hex::decode(&c.salt).unwrap().try_into().unwrap(),
        nonce: hex::decode(&c.nonce).unwrap().try_into().unwrap(),
    };
    (header, secret)
}

#[test]
fn vectors_seal_and_open() {
    let cases = load_cases();
    assert!(cases.len() >= 10);
    for suite in SealSuite::ALL {
        assert!(
            cases.iter().any(|c| c.suite == suite.name()),
            "no vector for {suite}"
        );
    }
    for c in &cases {
        let (header, secret) = case_header_and_secret(c);
        let pt = hex::decode(&c.plaintext).unwrap();
        let want = hex::decode(&c.sealed).unwrap();
        let mut got = Vec::new();
        seal_with_header(&pt[..], &mut got, &secret, &header, 1).unwrap();
        assert!(got == want, "{}: sealed bytes differ", c.name);
        assert_eq!(open_bytes(&want, &secret, 0).unwrap(), pt, "{}", c.name);
    }
}

/// Regenerates the π-Cipher cases of seal-v1.json (the AES ones come from
/// seal_vectors.py): `cargo test -p bitweave --test seal -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_pi_vectors() {
    let mut out = Vec::new();
    for (suite, n) in [
        (SealSuite::Pi64Cipher256V2, 0),
        (SealSuite::Pi64Cipher256V2, 2600),
        (SealSuite::Pi32Cipher256V2, 1025),
    ] {
        let header = Header {
            suite,
            kdf: Kdf::RawKey,
            chunk_log2: 10,
            salt: [0; 16],
            nonce: core::array::from_fn(|i| 0xa0 + i as u8),
        };
        let key: [u8; 32] = core::array::from_fn(|i| i as u8);
        let pt: Vec<u8> = (0..n).map(|i| ((i * 7 + 3) % 256) as u8).collect();
        let mut sealed = Vec::new();
        seal_with_header(&pt[..], &mut sealed, &Secret::key(key), &header, 1).unwrap();
        out.push(serde_json::json!({
            "name": format!("{} raw key, {n} bytes", suite.name()),
            "suite": suite.name(), "kdf": "raw", "key": hex::encode(key),
            "salt": hex::encode(header.salt), "nonce": hex::encode(header.nonce),
            "chunk_log2": 10, "plaintext": hex::encode(&pt), "sealed": hex::encode(&sealed),
        }));
    }
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}

// ---- round trips ----

#[test]
fn round_trips_around_chunk_and_window_boundaries() {
    // Windows are 4 chunks per thread: 1 thread → 4 chunks per window + 1 lookahead.
    let sizes = [
        0,
        1,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        3 * CHUNK,
        4 * CHUNK - 1,
        4 * CHUNK,
        4 * CHUNK + 1,
        5 * CHUNK,
        9 * CHUNK + 17,
        16 * CHUNK,
    ];
    for suite in SealSuite::ALL {
        for &n in &sizes {
            let pt = data(n, n as u8);
            for threads in [1, 3] {
                let sealed = seal_bytes(&pt, &key(), &opts(suite, threads));
                let chunks = n.div_ceil(CHUNK).max(1);
                assert_eq!(
                    sealed.len(),
                    HEADER_LEN + n + chunks * tag_len(suite),
                    "{suite} {n}"
                );
                for open_threads in [1, 2, 0] {
                    let back = open_bytes(&sealed, &key(), open_threads).unwrap();
                    assert!(back == pt, "{suite} n={n} threads={threads}/{open_threads}");
                }
            }
        }
    }
}

#[test]
fn passphrase_round_trip_and_fresh_randomness() {
    let pw = Secret::passphrase(b"hunter2 but longer");
    let pt = data(3 * CHUNK + 5, 1);
    let a = seal_bytes(&pt, &pw, &opts(SealSuite::Aes256CtrHmacSha256, 0));
    let b = seal_bytes(&pt, &pw, &opts(SealSuite::Aes256CtrHmacSha256, 0));
    assert_ne!(
        a[24..56],
        b[24..56],
        "salt and nonce must be fresh per file"
    );
    assert_ne!(a[HEADER_LEN..], b[HEADER_LEN..]);
    assert_eq!(open_bytes(&a, &pw, 0).unwrap(), pt);
    assert_eq!(open_bytes(&b, &pw, 0).unwrap(), pt);
    let k = seal_bytes(&pt, &key(), &opts(SealSuite::Aes256CtrHmacSha256, 0));
    assert_eq!(k[24..40], [0; 16], "a raw-key header has no salt");
}

/// A reader that hands out a few bytes per call: chunking must not depend on read sizes.
struct Dribble<'a>(&'a [u8], usize);

impl Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.1 = self.1 % 7 + 1;
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn short_reads_give_the_same_bytes() {
    let pt = data(6 * CHUNK + 100, 3);
    let header = Header {
        suite: SealSuite::Aes256CtrHmacSha256,
        kdf: Kdf::RawKey,
        chunk_log2: CHUNK_LOG2,
        salt: [0; 16],
        nonce: [1; 16],
    };
    let mut whole = Vec::new();
    seal_with_header(&pt[..], &mut whole, &key(), &header, 2).unwrap();
    let mut dribbled = Vec::new();
    seal_with_header(Dribble(&pt, 0), &mut dribbled, &key(), &header, 1).unwrap();
    assert!(whole == dribbled);
    let mut back = Vec::new();
    open(
        Dribble(&whole, 0),
        &mut back,
        &key(),
        &OpenOptions::default(),
    )
    .unwrap();
    assert!(back == pt);
}

// ---- tampering ----

/// Sealed test file: 3.5 chunks, so there are whole chunks and a partial final one.
fn sample(suite: SealSuite) -> (Vec<u8>, usize) {
    let pt = data(3 * CHUNK + CHUNK / 2, 9);
    (
        seal_bytes(&pt, &key(), &opts(suite, 0)),
        CHUNK + tag_len(suite),
    )
}

fn expect_err(sealed: &[u8], secret: &Secret, what: &str) -> SealError {
    match open_bytes(sealed, secret, 0) {
        Ok(_) => panic!("{what}: opened a tampered file"),
        Err(e) => e,
    }
}

#[test]
fn truncation_is_detected() {
    for suite in SealSuite::ALL {
        let (s, rec) = sample(suite);
        // At a chunk boundary: the cut-off chunk is authentic but not final.
        for k in 1..=3 {
            let e = expect_err(&s[..HEADER_LEN + k * rec], &key(), "cut at boundary");
            assert!(
                matches!(e, SealError::Truncated(i) if i == k as u64 - 1),
                "{e}"
            );
        }
        // Mid-chunk: the last record is short and verifies neither way.
        for (cut, idx) in [
            (HEADER_LEN + rec / 2, 0),
            (HEADER_LEN + 2 * rec + 100, 2),
            (s.len() - 1, (s.len() - HEADER_LEN).div_ceil(rec) as u64 - 1),
        ] {
            let e = expect_err(&s[..cut], &key(), "cut mid-chunk");
            assert!(
                matches!(e, SealError::CutOrAltered(i) if i == idx),
                "{suite} cut {cut}: {e}"
            );
        }
        // Inside the first tag.
        let e = expect_err(&s[..HEADER_LEN + 5], &key(), "cut in a tag");
        assert!(matches!(e, SealError::TruncatedTag(0)), "{suite}: {e}");
        // Inside the header, and right after it (no chunk at all).
        let e = expect_err(&s[..HEADER_LEN - 1], &key(), "cut in header");
        assert!(matches!(e, SealError::TruncatedHeader), "{e}");
        let e = expect_err(&s[..HEADER_LEN], &key(), "header only");
        assert!(matches!(e, SealError::TruncatedTag(0)), "{e}");
    }
}

#[test]
fn extension_is_detected() {
    for suite in SealSuite::ALL {
        let (s, rec) = sample(suite);
        for extra in [&[0u8][..], &[0u8; 40][..], &s[HEADER_LEN..HEADER_LEN + rec]] {
            let mut t = s.clone();
            t.extend_from_slice(extra);
            expect_err(&t, &key(), "extended");
        }
        // A file whose final chunk is full: appending a copy of a chunk leaves the final
        // chunk authentic but no longer last.
        let full = seal_bytes(&data(2 * CHUNK, 4), &key(), &opts(suite, 0));
        let mut t = full.clone();
        t.extend_from_slice(&full[HEADER_LEN..HEADER_LEN + rec]);
        let e = expect_err(&t, &key(), "extended after full final chunk");
        assert!(matches!(e, SealError::TrailingData(1)), "{e}");
    }
}

#[test]
fn reordering_and_splicing_are_detected() {
    for suite in SealSuite::ALL {
        let (s, rec) = sample(suite);
        let chunk =
            |f: &[u8], i: usize| f[HEADER_LEN + i * rec..HEADER_LEN + (i + 1) * rec].to_vec();
        // Swap chunks 0 and 1.
        let mut t = s[..HEADER_LEN].to_vec();
        t.extend(chunk(&s, 1));
        t.extend(chunk(&s, 0));
        t.extend_from_slice(&s[HEADER_LEN + 2 * rec..]);
        let e = expect_err(&t, &key(), "reordered");
        assert!(matches!(e, SealError::ChunkAuth(0)), "{e}");
        // Chunk 1 from another file sealed with the same key (other nonce).
        let (other, _) = sample(suite);
        let mut t = s.clone();
        t[HEADER_LEN + rec..HEADER_LEN + 2 * rec].copy_from_slice(&chunk(&other, 1));
        let e = expect_err(&t, &key(), "spliced chunk");
        assert!(matches!(e, SealError::ChunkAuth(1)), "{e}");
        // The other file's header in front of this file's chunks.
        let mut t = other[..HEADER_LEN].to_vec();
        t.extend_from_slice(&s[HEADER_LEN..]);
        let e = expect_err(&t, &key(), "spliced header");
        assert!(matches!(e, SealError::ChunkAuth(0)), "{e}");
        // Dropping a middle chunk.
        let mut t = s[..HEADER_LEN + rec].to_vec();
        t.extend_from_slice(&s[HEADER_LEN + 2 * rec..]);
        let e = expect_err(&t, &key(), "dropped chunk");
        assert!(matches!(e, SealError::ChunkAuth(1)), "{e}");
    }
}

#[test]
fn every_bit_flip_is_detected() {
    for suite in SealSuite::ALL {
        let (s, rec) = sample(suite);
        // Every bit of the header.
        for bit in 0..HEADER_LEN * 8 {
            let mut t = s.clone();
            t[bit / 8] ^= 1 << (bit % 8);
            let e = expect_err(&t, &key(), "header bit");
            assert!(
                matches!(
                    e,
                    SealError::NotSealed
                        | SealError::UnsupportedVersion(_)
                        | SealError::BadHeader(_)
                        | SealError::WrongKey
                        | SealError::NeedPassphrase
                ),
                "{suite} header bit {bit}: {e}"
            );
        }
        // A bit in ciphertext, in the tag, in the last chunk's tag.
        for (at, idx) in [
            (HEADER_LEN + 10, 0),
            (HEADER_LEN + CHUNK, 0),
            (HEADER_LEN + rec + CHUNK + tag_len(suite) - 1, 1),
            (s.len() - 1, 3),
            (HEADER_LEN + 3 * rec, 3),
        ] {
            for bit in [0, 7] {
                let mut t = s.clone();
                t[at] ^= 1 << bit;
                let e = expect_err(&t, &key(), "chunk bit");
                // A final chunk shorter than a full one may have been cut: both say so.
                assert!(
                    matches!(e, SealError::ChunkAuth(i) | SealError::CutOrAltered(i) if i == idx),
                    "{suite} {at}: {e}"
                );
            }
        }
    }
}

#[test]
fn wrong_secret_or_suite_is_refused() {
    let pt = data(2 * CHUNK, 2);
    let pw = Secret::passphrase(b"right");
    let s = seal_bytes(&pt, &pw, &opts(SealSuite::Pi64Cipher256V2, 0));
    let e = expect_err(&s, &Secret::passphrase(b"wrong"), "wrong passphrase");
    assert!(matches!(e, SealError::WrongKey), "{e}");
    let e = expect_err(&s, &key(), "key for a passphrase file");
    assert!(matches!(e, SealError::NeedPassphrase), "{e}");
    let k = seal_bytes(&pt, &key(), &opts(SealSuite::Aes256CtrHmacSha256, 0));
    let e = expect_err(&k, &Secret::key([0x5b; 32]), "wrong key");
    assert!(matches!(e, SealError::WrongKey), "{e}");
    let e = expect_err(&k, &pw, "passphrase for a key file");
    assert!(matches!(e, SealError::NeedKey), "{e}");
    // Relabel the suite (each other valid id): the header MAC fails.
    for other in SealSuite::ALL {
        if other != SealSuite::Aes256CtrHmacSha256 {
            let mut t = k.clone();
            t[7] = other.id();
            let e = expect_err(&t, &key(), "wrong suite");
            assert!(matches!(e, SealError::WrongKey), "{e}");
        }
    }
    let e = expect_err(
        b"hello, not sealed at all, but long enough",
        &key(),
        "plain",
    );
    assert!(matches!(e, SealError::NotSealed), "{e}");
}

#[test]
fn hostile_header_limits_are_checked_before_the_kdf() {
    let pt = data(10, 2);
    let s = seal_bytes(
        &pt,
        &Secret::passphrase(b"x"),
        &opts(SealSuite::Aes256CtrHmacSha256, 1),
    );
    // 4 GiB of Argon2 memory would be refused before any allocation.
    let mut t = s.clone();
    t[12..16].copy_from_slice(&(4u32 << 20).to_be_bytes());
    let e = expect_err(&t, &Secret::passphrase(b"x"), "huge m");
    assert!(matches!(e, SealError::BadHeader(_)), "{e}");
    let mut t = s;
    t[9] = 30;
    let e = expect_err(&t, &Secret::passphrase(b"x"), "huge chunk");
    assert!(matches!(e, SealError::BadHeader(_)), "{e}");
    assert_eq!(BODY_LEN + 32, HEADER_LEN);
}

#[test]
fn seal_options_are_validated() {
    let mut o = opts(SealSuite::Aes256CtrHmacSha256, 0);
    o.chunk_log2 = 9;
    let mut out = Vec::new();
    assert!(matches!(
        seal(&b"x"[..], &mut out, &key(), &o),
        Err(SealError::BadParams(_))
    ));
    o.chunk_log2 = 12;
    o.argon2.m_kib = 4;
    assert!(matches!(
        seal(&b"x"[..], &mut out, &Secret::passphrase(b"p"), &o),
        Err(SealError::BadParams(_))
    ));
    assert!(out.is_empty());
    assert!(matches!(
        "aes-128-gcm".parse::<SealSuite>(),
        Err(SealError::UnknownSuite(_))
    ));
}
