"""openssl_encrypt/openssl_decrypt against the `openssl enc` binary, both ways: each KDF,
-S, -nosalt, str and bytes passwords, several cipher families; and the bad inputs."""

import shutil
import subprocess
import warnings

import pytest

import bitweave
from bitweave import BitweaveError

OPENSSL = shutil.which("openssl")
if OPENSSL is None:  # .ci/run installs it; a bare machine says why the tests are skipped
    pytest.skip("the openssl binary is not installed", allow_module_level=True)

PLAIN = bytes(range(256)) * 20 + b"tail"


def openssl_enc(args, data):
    out = subprocess.run(
        [OPENSSL, "enc", "-provider", "legacy", "-provider", "default", *args],
        input=data, capture_output=True, check=True)
    return out.stdout


# (bitweave keyword arguments, the same run in openssl's spelling)
CASES = [
    ("aes-256-cbc", {}, ["-pbkdf2"]),
    ("aes-128-ctr", {"iter": 1000, "md": "sha512"}, ["-pbkdf2", "-iter", "1000", "-md", "sha512"]),
    ("des-ede3-cbc", {"pbkdf2": False, "md": "md5"}, ["-md", "md5"]),
    ("seed-ofb", {"pbkdf2": False}, []),
    ("aes-192-ecb", {"md": "sha1"}, ["-pbkdf2", "-md", "sha1"]),
    ("des-cfb8", {}, ["-pbkdf2"]),
]


@pytest.mark.parametrize("suite, kw, flags", CASES, ids=[c[0] for c in CASES])
def test_round_trips_with_the_openssl_binary(suite, kw, flags):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy KDF's deprecation warning
        ours = bitweave.openssl_encrypt(PLAIN, "pässword", suite, **kw)
        assert ours[:8] == b"Salted__"
        assert openssl_enc(["-d", f"-{suite}", "-pass", "pass:pässword", *flags], ours) == PLAIN
        theirs = openssl_enc([f"-{suite}", "-pass", "pass:pässword", *flags], PLAIN)
        assert bitweave.openssl_decrypt(theirs, "pässword".encode(), suite, **kw) == PLAIN
        # A fixed salt (-S) makes the output fixed: byte-identical to openssl's.
        salt = bytes.fromhex("0011223344556677")
        fixed = openssl_enc([f"-{suite}", "-pass", "pass:pw", "-S", salt.hex(), *flags], PLAIN)
        assert bitweave.openssl_encrypt(PLAIN, "pw", suite, salt=salt, **kw) == fixed
        assert bitweave.openssl_decrypt(fixed, b"pw", suite, salt=salt, **kw) == PLAIN
        nosalt = openssl_enc([f"-{suite}", "-pass", "pass:pw", "-nosalt", *flags], PLAIN)
        assert bitweave.openssl_encrypt(PLAIN, "pw", suite, nosalt=True, **kw) == nosalt
        assert bitweave.openssl_decrypt(nosalt, "pw", suite, nosalt=True, **kw) == PLAIN


def test_legacy_kdf_warns_when_encrypting_only():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ct = bitweave.openssl_encrypt(b"x", "pw", "aes-128-cbc", pbkdf2=False)
        bitweave.openssl_decrypt(ct, "pw", "aes-128-cbc", pbkdf2=False)
    assert [str(x.message) for x in w] == [
        "deprecated key derivation (EVP_BytesToKey) used; pbkdf2=True would be better"]


def test_fresh_salts_differ_and_outputs_are_exact_length():
    a = bitweave.openssl_encrypt(b"abc", "pw", "aes-256-cbc")
    b = bitweave.openssl_encrypt(b"abc", "pw", "aes-256-cbc")
    assert a != b and len(a) == len(b) == 16 + 16
    assert len(bitweave.openssl_encrypt(b"abc", "pw", "aes-256-ctr")) == 16 + 3


@pytest.mark.parametrize("data, kw, message", [
    # A fixed ciphertext (fixed salt): the wrong password's padding is fixed to be bad.
    ("wrong", {}, "bad decrypt"),
    (b"Salted__1234", {}, "'Salted__' with no complete salt"),
    (b"\0" * 64, {}, "does not start with 'Salted__'"),
    (b"short", {}, "shorter than the 16-byte 'Salted__' header"),
    (b"Salted__12345678" + b"\0" * 15, {}, "block"),
    (b"", {"salt": b"1234567"}, "salt must be 8 bytes, not 7"),
    (b"", {"salt": b"12345678", "nosalt": True}, "not both"),
    (b"", {"md": "sha3"}, "unknown digest 'sha3'"),
    (b"", {"iter": 0}, "iter must be at least 1"),
])
def test_bad_inputs_raise_one_clear_error(data, kw, message):
    if data == "wrong":
        salt = bytes(range(8))
        data = b"Salted__" + salt + bitweave.openssl_encrypt(PLAIN, "right", "aes-256-cbc", salt=salt)
        kw = {}
        pw = "wrong"
    else:
        pw = "pw"
    with pytest.raises(BitweaveError, match=message):
        bitweave.openssl_decrypt(data, pw, "aes-256-cbc", **kw)
