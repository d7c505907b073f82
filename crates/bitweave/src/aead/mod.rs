//! Authenticated encryption: π-Cipher (CAESAR round 2, v2), the ARX paper's AEAD.
