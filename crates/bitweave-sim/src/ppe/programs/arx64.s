; pi64 ARX operation block  OUT = X * Y  on the PPE, one 64-bit lane: one word per
; coefficient-memory word, chunk words at CH+0..CH+3. Two forms of the mu and nu XOR
; stages: plain (each word its own chain of three rotated terms: 52 instructions, the
; paper's 53 within one; section 5.2 gives the length, not the text) and, with SHARED,
; s0^s1, s2^s3 (t0^t1, t2^t3) shared between the words (44 instructions). The
; datapath is used as a scalar machine (section 6: "in 64-bit mode, the PPE acts as a
; single core").
; Bound by the driver: X, Y, OUT, T, ZERO, CMU, CNU, YIN, EMIT, SHARED.
;
; Each sum is an accumulator chain (c + a, + b, + c -> memory); the rotation is applied by
; the rotator on the operand that consumes the sum. When Y arrives on xin (YIN), its four
; words are written while the mu chains keep the result in the accumulator only.
.width 64
.data CMU: mu0, mu1, mu2, mu3
.data CNU: nu0, nu1, nu2, nu3
.equ SP, T+0      ; s'_0..3 (mu sums before rotation)
.equ S0, T+4      ; s0
.equ S2, T+5      ; s2
.equ E,  T+6      ; s0^s1
.equ F,  T+7      ; s2^s3
.equ MU, T+8      ; mu_0..3
.equ TP, T+12     ; t'_0..3
.equ T0, T+16     ; t0
.equ T2, T+17     ; t2
.equ G,  T+18     ; t2^t3
.equ H,  T+19     ; t0^t1
.equ NU, T+20     ; nu_0..3

; mu sums: s'_i = c_mu_i + three of x0..x3 (s0 leaves x3 out, s1 x2, s2 x1, s3 x0)
.if YIN
add.64 acc, [CMU+0], [X+0], in [Y+0]
.else
add.64 acc, [CMU+0], [X+0]
.endif
.if YIN
add.64 acc, [X+1], acc, in [Y+1]
.else
add.64 acc, [X+1], acc
.endif
add.64 [SP+0], [X+2], acc
.if YIN
add.64 acc, [CMU+1], [X+0], in [Y+2]
.else
add.64 acc, [CMU+1], [X+0]
.endif
.if YIN
add.64 acc, [X+1], acc, in [Y+3]
.else
add.64 acc, [X+1], acc
.endif
add.64 [SP+1], [X+3], acc
add.64 acc, [CMU+2], [X+0]
add.64 acc, [X+2], acc
add.64 [SP+2], [X+3], acc
add.64 acc, [CMU+3], [X+1]
add.64 acc, [X+2], acc
add.64 [SP+3], [X+3], acc
; mu = (s0^s1^s3, s0^s1^s2, s1^s2^s3, s0^s2^s3); s_i = rotl(s'_i, r_mu_i)
.if SHARED
; s0, s2, then s0^s1, s2^s3 shared between the mu words
xor.64 [S0], [ZERO], [SP+0]<<<7
xor.64 [S2], [ZERO], [SP+2]<<<31
xor.64 [E], [S0], [SP+1]<<<19
xor.64 [F], [S2], [SP+3]<<<53
xor.64 [MU+0], [E], [SP+3]<<<53
xor.64 [MU+1], [E], [SP+2]<<<31
xor.64 [MU+2], [F], [SP+1]<<<19
xor.64 [MU+3], [F], [SP+0]<<<7
.else
; each mu word its own chain of three rotated terms
xor.64 [MU+0], [ZERO], [SP+0]<<<7
xor.64 [MU+0], [MU+0], [SP+1]<<<19
xor.64 [MU+0], [MU+0], [SP+3]<<<53
xor.64 [MU+1], [ZERO], [SP+0]<<<7
xor.64 [MU+1], [MU+1], [SP+1]<<<19
xor.64 [MU+1], [MU+1], [SP+2]<<<31
xor.64 [MU+2], [ZERO], [SP+1]<<<19
xor.64 [MU+2], [MU+2], [SP+2]<<<31
xor.64 [MU+2], [MU+2], [SP+3]<<<53
xor.64 [MU+3], [ZERO], [SP+0]<<<7
xor.64 [MU+3], [MU+3], [SP+2]<<<31
xor.64 [MU+3], [MU+3], [SP+3]<<<53
.endif

; nu sums: t'_i = c_nu_i + three of y0..y3 (t0 leaves y1 out, t1 y0, t2 y3, t3 y2)
add.64 acc, [CNU+0], [Y+0]
add.64 acc, [Y+2], acc
add.64 [TP+0], [Y+3], acc
add.64 acc, [CNU+1], [Y+1]
add.64 acc, [Y+2], acc
add.64 [TP+1], [Y+3], acc
add.64 acc, [CNU+2], [Y+0]
add.64 acc, [Y+1], acc
add.64 [TP+2], [Y+2], acc
add.64 acc, [CNU+3], [Y+0]
add.64 acc, [Y+1], acc
add.64 [TP+3], [Y+3], acc
; nu = (t1^t2^t3, t0^t2^t3, t0^t1^t3, t0^t1^t2); t_i = rotl(t'_i, r_nu_i)
.if SHARED
; t0, t2, then t0^t1, t2^t3 shared between the nu words
xor.64 [T0], [ZERO], [TP+0]<<<11
xor.64 [T2], [ZERO], [TP+2]<<<37
xor.64 [H], [T0], [TP+1]<<<23
xor.64 [G], [T2], [TP+3]<<<59
xor.64 [NU+0], [G], [TP+1]<<<23
xor.64 [NU+1], [G], [TP+0]<<<11
xor.64 [NU+2], [H], [TP+3]<<<59
xor.64 [NU+3], [H], [TP+2]<<<37
.else
xor.64 [NU+0], [ZERO], [TP+1]<<<23
xor.64 [NU+0], [NU+0], [TP+2]<<<37
xor.64 [NU+0], [NU+0], [TP+3]<<<59
xor.64 [NU+1], [ZERO], [TP+0]<<<11
xor.64 [NU+1], [NU+1], [TP+2]<<<37
xor.64 [NU+1], [NU+1], [TP+3]<<<59
xor.64 [NU+2], [ZERO], [TP+0]<<<11
xor.64 [NU+2], [NU+2], [TP+1]<<<23
xor.64 [NU+2], [NU+2], [TP+3]<<<59
xor.64 [NU+3], [ZERO], [TP+0]<<<11
xor.64 [NU+3], [NU+3], [TP+1]<<<23
xor.64 [NU+3], [NU+3], [TP+2]<<<37
.endif

; sigma: OUT_j = mu_(j+1) + nu_(j+1)
.if EMIT
add.64 [OUT+0], [MU+1], [NU+1], out
add.64 [OUT+1], [MU+2], [NU+2], out
add.64 [OUT+2], [MU+3], [NU+3], out
add.64 [OUT+3], [MU+0], [NU+0], out
.else
add.64 [OUT+0], [MU+1], [NU+1]
add.64 [OUT+1], [MU+2], [NU+2]
add.64 [OUT+2], [MU+3], [NU+3]
add.64 [OUT+3], [MU+0], [NU+0]
.endif
