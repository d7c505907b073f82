; Streams one round's constants C = RC[8r..8r+3] and C' = RC[8r+4..8r+7] from xin into the
; coefficient memory (16-bit words: one 64-bit word each). Bound: RC, RC2, ZERO.
xor.16 acc, [ZERO], [ZERO], in [RC]
xor.16 acc, [ZERO], [ZERO], in [RC2]
