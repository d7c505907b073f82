; Streams one round's constants C and C' from xin (32-bit words: two 64-bit words each).
xor.32 acc, [ZERO], [ZERO], in [RC]
xor.32 acc, [ZERO], [ZERO], in [RC+1]
xor.32 acc, [ZERO], [ZERO], in [RC2]
xor.32 acc, [ZERO], [ZERO], in [RC2+1]
