//! The sealed-file parser and `open`, with a raw key (no Argon2: far too slow per run).
//!
//! First byte even: the rest is a sealed file, opened with the key of the project's
//! raw-key vectors (000102..1f), so seeds made from `seal-v1.json` get past the header MAC
//! and the fuzzer works on the chunks. Odd: a valid file is sealed here (suite, length and
//! plaintext from the input, 1 KiB chunks so a few KiB make several chunks), then damaged
//! by a list of fuzzer-chosen edits (flip, cut, insert, delete, duplicate or swap a
//! record, append), and opened.
//!
//! Properties: never a panic; `Header::parse_body` accepts only canonical bodies (what it
//! parses encodes back to the same 56 bytes: the MAC covers the re-encoding); a file that
//! opens gives back exactly the sealed plaintext and is byte for byte the file that was
//! sealed (any other file opening is a forgery).
#![no_main]

use bitweave::seal::{
    open, seal_with_header, Header, Kdf, OpenOptions, SealError, SealSuite, Secret, BODY_LEN,
    HEADER_LEN,
};
use bitweave_fuzz::Reader;
use libfuzzer_sys::fuzz_target;

/// The key of the raw-key vectors in `crates/bitweave/tests/vectors/seal/seal-v1.json`.
fn vector_key() -> [u8; 32] {
    std::array::from_fn(|i| i as u8)
}

fn check_header_parse(bytes: &[u8]) {
    if bytes.len() >= BODY_LEN {
        let body: &[u8; BODY_LEN] = bytes[..BODY_LEN].try_into().unwrap();
        if let Ok(h) = Header::parse_body(body) {
            assert_eq!(&h.encode_body(), body, "non-canonical header accepted");
        }
    }
}

fn open_bytes(file: &[u8], key: &Secret) -> Result<Vec<u8>, SealError> {
    let mut out = Vec::new();
    open(file, &mut out, key, &OpenOptions::default())?;
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let key = Secret::key(vector_key());
    if r.u8() & 1 == 0 {
        let file = r.rest();
        check_header_parse(file);
        let res = open_bytes(file, &key);
        if res.is_ok() {
            // Whatever opens must re-seal to the same bytes under its own header.
            let header = Header::parse_body(file[..BODY_LEN].try_into().unwrap()).unwrap();
            let mut again = Vec::new();
            seal_with_header(&res.as_ref().unwrap()[..], &mut again, &key, &header, 0).unwrap();
            assert_eq!(again, file, "a file opened that is not what sealing gives");
        }
        return;
    }

    let suite = SealSuite::ALL[r.u8() as usize % 3];
    let len = r.u16() as usize % 5000;
    let header = Header {
        suite,
        kdf: Kdf::RawKey,
        chunk_log2: 10,
        salt: [0; 16],
        nonce: r.bytes(16).try_into().unwrap(),
    };
    let plain: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
    let mut sealed = Vec::new();
    seal_with_header(&plain[..], &mut sealed, &key, &header, 0).expect("seal");
    assert_eq!(
        open_bytes(&sealed, &key).expect("open what was sealed"),
        plain
    );

    let record = header.chunk_size() + suite.tag_len();
    let mut file = sealed.clone();
    for _ in 0..r.u8() % 8 {
        let (op, at, val) = (r.u8(), r.u16() as usize, r.u8());
        let pos = at % (file.len() + 1);
        match op % 7 {
            0 if !file.is_empty() => {
                let i = at % file.len();
                file[i] ^= val.max(1);
            }
            1 => file.truncate(pos),
            2 => file.insert(pos, val),
            3 => {
                let end = (pos + val as usize + 1).min(file.len());
                file.drain(pos..end);
            }
            4 | 5 => {
                // Record-level edits: duplicate record i, or swap records i and i + 1.
                let records = file.len().saturating_sub(HEADER_LEN).div_ceil(record);
                if records == 0 {
                    continue;
                }
                let i = at % records;
                let start = HEADER_LEN + i * record;
                let end = (start + record).min(file.len());
                let rec = file[start..end].to_vec();
                if op % 7 == 4 {
                    file.splice(end..end, rec);
                } else if end < file.len() {
                    let next_end = (end + record).min(file.len());
                    let next = file[end..next_end].to_vec();
                    file.splice(start..next_end, next.into_iter().chain(rec));
                }
            }
            _ => file.extend(std::iter::repeat_n(val, 1 + at % 64)),
        }
    }
    check_header_parse(&file);
    match open_bytes(&file, &key) {
        Ok(out) => {
            assert_eq!(file, sealed, "an altered sealed file opened");
            assert_eq!(out, plain);
        }
        Err(e) => {
            let _ = e.to_string();
            assert_ne!(file, sealed, "an unaltered file failed to open: {e}");
        }
    }
});
