; Streams one round's constants C and C' from xin (64-bit words: four 64-bit words each).
xor.64 acc, [ZERO], [ZERO], in [RC]
xor.64 acc, [ZERO], [ZERO], in [RC+1]
xor.64 acc, [ZERO], [ZERO], in [RC+2]
xor.64 acc, [ZERO], [ZERO], in [RC+3]
xor.64 acc, [ZERO], [ZERO], in [RC2]
xor.64 acc, [ZERO], [ZERO], in [RC2+1]
xor.64 acc, [ZERO], [ZERO], in [RC2+2]
xor.64 acc, [ZERO], [ZERO], in [RC2+3]
