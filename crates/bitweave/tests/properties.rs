//! Property tests: decrypt(encrypt(x)) = x for every suite, padding and interleave factor;
//! any split of the input into chunks gives the one-shot result; in-place processing of
//! unaligned buffers gives the same bytes.

use bitweave::{Cipher, CipherKind, Direction, Mode, ModeParams, Suite};
use proptest::prelude::*;

fn suite_strategy() -> impl Strategy<Value = (Suite, ModeParams)> {
    (
        0..CipherKind::ALL.len(),
        0..Mode::ALL.len(),
        1usize..=9,
        any::<bool>(),
    )
        .prop_map(|(c, m, n, pad)| {
            let suite = Suite {
                cipher: CipherKind::ALL[c],
                mode: Mode::ALL[m],
            };
            let n = if suite.mode.interleavable() { n } else { 1 };
            let params = suite
                .params()
                .interleave(n)
                .padding(pad && suite.mode.whole_blocks());
            (suite, params)
        })
}

fn fixup(params: &ModeParams, bs: usize, mut data: Vec<u8>) -> Vec<u8> {
    if params.mode.whole_blocks() && !params.padding {
        data.truncate(data.len() - data.len() % bs);
    }
    data
}

fn run_chunked(
    params: &ModeParams,
    c: &Cipher,
    dir: Direction,
    iv: &[u8],
    data: &[u8],
    cuts: &[usize],
) -> Vec<u8> {
    let mut cr = params.crypter(c, dir, iv).unwrap();
    let mut out = Vec::new();
    let mut cuts: Vec<usize> = cuts.iter().map(|&x| x % (data.len() + 1)).collect();
    cuts.sort();
    let mut prev = 0;
    for cut in cuts.into_iter().chain([data.len()]) {
        cr.update(&data[prev..cut], &mut out);
        prev = cut;
    }
    cr.finish(&mut out).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn round_trip_and_any_split((suite, params) in suite_strategy(),
                                key in prop::collection::vec(any::<u8>(), 32),
                                iv in prop::collection::vec(any::<u8>(), 16 * 9),
                                data in prop::collection::vec(any::<u8>(), 0..300),
                                cuts in prop::collection::vec(any::<usize>(), 0..6)) {
        let bs = suite.cipher.block_size();
        let key = &key[..suite.cipher.key_len()];
        let iv = &iv[..params.iv_len(bs)];
        let data = fixup(&params, bs, data);
        let c = Cipher::new(suite.cipher, key).unwrap();
        let ct = params.encrypt_all(&c, iv, &data).unwrap();
        prop_assert_eq!(run_chunked(&params, &c, Direction::Encrypt, iv, &data, &cuts), ct.clone());
        if params.padding {
            prop_assert_eq!(ct.len(), (data.len() / bs + 1) * bs);
        } else {
            prop_assert_eq!(ct.len(), data.len());
        }
        let pt = params.decrypt_all(&c, iv, &ct).unwrap();
        prop_assert_eq!(&pt, &data);
        prop_assert_eq!(run_chunked(&params, &c, Direction::Decrypt, iv, &ct, &cuts), data);
    }

    #[test]
    fn in_place_updates_equal_copying_updates((suite, params) in suite_strategy(),
                                              key in prop::collection::vec(any::<u8>(), 32),
                                              iv in prop::collection::vec(any::<u8>(), 16 * 9),
                                              units in prop::collection::vec(0usize..5, 0..5),
                                              threads in 1usize..4) {
        let params = params.padding(false);
        let bs = suite.cipher.block_size();
        let key = &key[..suite.cipher.key_len()];
        let iv = &iv[..params.iv_len(bs)];
        let c = Cipher::new(suite.cipher, key).unwrap().with_threads(threads);
        for dir in [Direction::Encrypt, Direction::Decrypt] {
            let mut copying = params.crypter(&c, dir, iv).unwrap();
            let mut in_place = params.crypter(&c, dir, iv).unwrap();
            // Whole units: rows of N blocks for interleaved chains, else blocks (CFB1/8
            // take any byte count; blocks are whole units for them too).
            let unit = if params.interleave > 1 { params.iv_len(bs) } else { bs };
            let mut expected = Vec::new();
            let mut got = Vec::new();
            for (i, &u) in units.iter().enumerate() {
                let piece: Vec<u8> = (0..u * unit).map(|j| (i * 131 + j * 7) as u8).collect();
                copying.update(&piece, &mut expected);
                let mut buf = piece.clone();
                in_place.update_in_place(&mut buf).unwrap();
                got.extend_from_slice(&buf);
            }
            prop_assert_eq!(got, expected);
        }
    }

    /// The streaming CLI's path: every piece but the last in place (before the end, so
    /// padded decryption too), the last through `update` and `finish`; equals one shot.
    #[test]
    fn in_place_before_the_end_equals_one_shot((suite, params) in suite_strategy(),
                                               key in prop::collection::vec(any::<u8>(), 32),
                                               iv in prop::collection::vec(any::<u8>(), 16 * 9),
                                               units in prop::collection::vec(0usize..5, 0..5),
                                               tail in 0usize..40) {
        let bs = suite.cipher.block_size();
        let key = &key[..suite.cipher.key_len()];
        let iv = &iv[..params.iv_len(bs)];
        let c = Cipher::new(suite.cipher, key).unwrap();
        let unit = params.crypter(&c, Direction::Encrypt, iv).unwrap().unit();
        let mut pieces: Vec<Vec<u8>> = units
            .iter()
            .enumerate()
            .map(|(i, &u)| (0..u * unit).map(|j| (i * 131 + j * 7) as u8).collect())
            .collect();
        pieces.push((0..tail).map(|j| (j * 13) as u8).collect());
        let plain: Vec<u8> = fixup(&params, bs, pieces.concat());
        let cipher_text = params.encrypt_all(&c, iv, &plain).unwrap();
        for (dir, input, want) in [
            (Direction::Encrypt, &plain, &cipher_text),
            (Direction::Decrypt, &cipher_text, &plain),
        ] {
            // Cut `input` at the pieces' boundaries (whole units), the rest last.
            let mut cr = params.crypter(&c, dir, iv).unwrap();
            let mut got = Vec::new();
            let mut at = 0;
            for p in &pieces[..pieces.len() - 1] {
                if at + p.len() > input.len() {
                    break;
                }
                let mut buf = input[at..at + p.len()].to_vec();
                cr.update_in_place_before_end(&mut buf).unwrap();
                got.extend_from_slice(&buf);
                at += p.len();
            }
            cr.update(&input[at..], &mut got);
            cr.finish(&mut got).unwrap();
            prop_assert_eq!(&got, want, "{} {:?}", suite, dir);
        }
    }

    #[test]
    fn unaligned_buffers_give_the_same_blocks(offset in 0usize..16, blocks in 0usize..40, seed in any::<u64>()) {
        for kind in CipherKind::ALL {
            let bs = kind.block_size();
            let key: Vec<u8> = (0..kind.key_len()).map(|i| (seed >> (i % 8)) as u8 ^ i as u8).collect();
            let c = Cipher::new(kind, &key).unwrap();
            let data: Vec<u8> = (0..blocks * bs).map(|i| (i as u64 * 31 + seed) as u8).collect();
            let mut aligned = data.clone();
            bitweave::BlockCipher::encrypt_blocks(&c, &mut aligned);
            let mut buf = vec![0u8; offset + data.len()];
            buf[offset..].copy_from_slice(&data);
            bitweave::BlockCipher::encrypt_blocks(&c, &mut buf[offset..]);
            prop_assert_eq!(&buf[offset..], &aligned[..]);
            // Multi-block equals block-by-block.
            let mut single = data.clone();
            single.chunks_mut(bs).for_each(|b| bitweave::BlockCipher::encrypt_blocks(&c, b));
            prop_assert_eq!(single, aligned);
        }
    }
}

#[test]
fn in_place_is_refused_where_it_cannot_be_exact() {
    use bitweave::Error;
    let c = Cipher::new(CipherKind::Aes128, &[0; 16]).unwrap();
    let iv = [0u8; 16];
    let unavailable = Err(Error::InPlaceUnavailable { unit: 16 });
    // Not whole blocks.
    let ecb = ModeParams::new(Mode::Ecb).padding(false);
    let mut cr = ecb.crypter(&c, Direction::Encrypt, &[]).unwrap();
    assert_eq!(cr.update_in_place(&mut [0u8; 17]), unavailable);
    // Padded decryption holds its last block back for `finish`.
    let cbc = ModeParams::new(Mode::Cbc);
    let mut cr = cbc.crypter(&c, Direction::Decrypt, &iv).unwrap();
    assert_eq!(cr.update_in_place(&mut [0u8; 32]), unavailable);
    // Bytes pending from an earlier copying update.
    let mut cr = ecb.crypter(&c, Direction::Encrypt, &[]).unwrap();
    cr.update(&[1, 2, 3], &mut Vec::new());
    assert_eq!(cr.update_in_place(&mut [0u8; 16]), unavailable);
    // A stream mode holds nothing back: in place takes any length after any call.
    let ctr = ModeParams::new(Mode::Ctr);
    let mut cr = ctr.crypter(&c, Direction::Encrypt, &iv).unwrap();
    let mut out = Vec::new();
    cr.update(&[1, 2, 3], &mut out);
    assert_eq!(out.len(), 3);
    assert_eq!(cr.update_in_place(&mut [0u8; 17]), Ok(()));
}

#[test]
fn parameter_errors_are_reported() {
    use bitweave::Error;
    let c = Cipher::new(CipherKind::Aes128, &[0; 16]).unwrap();
    let cbc = ModeParams::new(Mode::Cbc);
    assert_eq!(
        Cipher::new(CipherKind::Aes128, &[0; 15]).unwrap_err(),
        Error::KeyLength {
            cipher: "aes-128",
            expected: 16,
            got: 15
        }
    );
    assert!(matches!(
        cbc.encrypt_all(&c, &[0; 8], b"x"),
        Err(Error::IvLength {
            expected: 16,
            got: 8,
            ..
        })
    ));
    assert!(matches!(
        cbc.encrypt_all(&c, &[], b"x"),
        Err(Error::MissingIv(_))
    ));
    assert_eq!(
        ModeParams::new(Mode::Ctr).interleave(2).validate(),
        Err(Error::InterleaveUnsupported("ctr"))
    );
    assert_eq!(
        ModeParams::new(Mode::Cbc).interleave(0).validate(),
        Err(Error::ZeroInterleave)
    );
    assert_eq!(
        cbc.padding(false).encrypt_all(&c, &[0; 16], b"abc"),
        Err(Error::NotWholeBlocks { len: 3, block: 16 })
    );
    assert_eq!(
        cbc.decrypt_all(&c, &[0; 16], &[0; 17]),
        Err(Error::NotWholeBlocks { len: 17, block: 16 })
    );
    assert_eq!(
        cbc.decrypt_all(&c, &[0; 16], &[]),
        Err(Error::NotWholeBlocks { len: 0, block: 16 })
    );
    // A random last block almost never carries valid padding; a fixed one that does not:
    let bad = ModeParams::new(Mode::Ecb)
        .padding(false)
        .encrypt_all(&c, &[], &[0u8; 16])
        .unwrap();
    assert_eq!(
        ModeParams::new(Mode::Ecb).decrypt_all(&c, &[], &bad),
        Err(Error::BadPadding)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The stream modes (CTR; CFB and OFB on one chain) give back as many bytes as each
    /// call takes, as OpenSSL's and pyca/cryptography's do, and `finish` adds none; the
    /// bytes equal the one-shot result, through `update` and in place alike. Names the
    /// cipher, mode and direction when it fails.
    #[test]
    fn stream_modes_give_every_byte_at_once(c in 0..CipherKind::ALL.len(),
                                            m in 0usize..3,
                                            decrypt in any::<bool>(),
                                            key in prop::collection::vec(any::<u8>(), 32),
                                            iv in prop::collection::vec(any::<u8>(), 16),
                                            data in prop::collection::vec(any::<u8>(), 0..200),
                                            cuts in prop::collection::vec(0usize..200, 0..8)) {
        let kind = CipherKind::ALL[c];
        let mode = [Mode::Ctr, Mode::Cfb, Mode::Ofb][m];
        let dir = if decrypt { Direction::Decrypt } else { Direction::Encrypt };
        let params = ModeParams::new(mode);
        let cipher = Cipher::new(kind, &key[..kind.key_len()]).unwrap();
        let iv = &iv[..params.iv_len(kind.block_size())];
        let want = match dir {
            Direction::Encrypt => params.encrypt_all(&cipher, iv, &data).unwrap(),
            Direction::Decrypt => params.decrypt_all(&cipher, iv, &data).unwrap(),
        };
        let what = format!("{}-{} {dir:?}", kind.name(), mode.name());
        let mut cuts: Vec<usize> = cuts.iter().map(|&x| x % (data.len() + 1)).collect();
        cuts.sort();
        let mut copying = params.crypter(&cipher, dir, iv).unwrap();
        let mut in_place = params.crypter(&cipher, dir, iv).unwrap();
        prop_assert_eq!(copying.unit(), 1, "{}", what);
        let (mut got, mut got_in_place, mut prev) = (Vec::new(), Vec::new(), 0);
        for cut in cuts.into_iter().chain([data.len()]) {
            let before = got.len();
            copying.update(&data[prev..cut], &mut got);
            prop_assert_eq!(got.len() - before, cut - prev, "{}: bytes held back", what);
            let mut piece = data[prev..cut].to_vec();
            in_place.update_in_place(&mut piece).unwrap();
            got_in_place.extend_from_slice(&piece);
            prev = cut;
        }
        let before = got.len();
        copying.finish(&mut got).unwrap();
        prop_assert_eq!(got.len(), before, "{}: finish added bytes", what);
        prop_assert_eq!(&got, &want, "{}", what);
        prop_assert_eq!(&got_in_place, &want, "{}: in place", what);
    }
}

/// A long CTR stream of short calls, through the look-ahead the `Crypter` keeps (up to 64
/// bytes of keystream made ahead), gives the one-shot bytes: calls of 1 to 23 bytes over
/// 700 bytes, for every cipher, both directions, through `update` and in place.
#[test]
fn ctr_streams_of_short_calls_equal_one_shot() {
    let params = ModeParams::new(Mode::Ctr);
    for kind in CipherKind::ALL {
        let key: Vec<u8> = (0..kind.key_len() as u8)
            .map(|i| i.wrapping_mul(29) ^ 7)
            .collect();
        let iv: Vec<u8> = (0..kind.block_size() as u8).map(|i| 0xf0 | i).collect();
        let cipher = Cipher::new(kind, &key).unwrap();
        let data: Vec<u8> = (0..700u32).map(|i| (i * 131 % 251) as u8).collect();
        for dir in [Direction::Encrypt, Direction::Decrypt] {
            let want = match dir {
                Direction::Encrypt => params.encrypt_all(&cipher, &iv, &data).unwrap(),
                Direction::Decrypt => params.decrypt_all(&cipher, &iv, &data).unwrap(),
            };
            let mut copying = params.crypter(&cipher, dir, &iv).unwrap();
            let mut in_place = params.crypter(&cipher, dir, &iv).unwrap();
            let (mut got, mut got_in_place) = (Vec::new(), Vec::new());
            let (mut at, mut len) = (0, 1);
            while at < data.len() {
                let piece = &data[at..(at + len).min(data.len())];
                copying.update(piece, &mut got);
                let mut own = piece.to_vec();
                in_place.update_in_place(&mut own).unwrap();
                got_in_place.extend_from_slice(&own);
                at += piece.len();
                len = len % 23 + 1;
            }
            copying.finish(&mut got).unwrap();
            let what = format!("{}-ctr {dir:?}", kind.name());
            assert_eq!(got, want, "{what}");
            assert_eq!(got_in_place, want, "{what}: in place");
        }
    }
}
