; pi16 ARX operation block  OUT = X * Y = sigma(mu(X), nu(Y))  on the PPE, 4x16-bit lanes.
; A chunk (4 words) is one 64-bit coefficient-memory word, word i in lane i.
; Bound by the driver: X, Y, OUT (chunk addresses), T (scratch base), ZERO, CMU, CNU,
; YIN (Y arrives on xin and is written to Y), EMIT (OUT also goes to xout).
;
; Lane i computes the sum s_i (mu) / t_i (nu) from three shuffled copies of the chunk; the
; constants are stored in the lane order the shuffles need. The XOR stage then puts
; mu_(i+1) and nu_(i+1) in lane i, so sigma (add, then word positions rotated left by one)
; is a single add.
.width 16
.data CMU: mu1, mu0, mu3, mu2       ; lane p(i) holds c_mu_i, p = (1,0,3,2)
.data CNU: nu2, nu3, nu0, nu1       ; lane p(i) holds c_nu_i, p = (2,3,0,1)
.equ TS1, T+0
.equ SP,  T+1      ; mu sums before rotation, s'_i in lane i
.equ S,   T+2      ; s_i in lane i
.equ V,   T+3
.equ MU,  T+4      ; mu_(i+1) in lane i
.equ TT1, T+5
.equ TP,  T+6      ; nu sums before rotation
.equ TR,  T+7
.equ W,   T+8
.equ NU,  T+9      ; nu_(i+1) in lane i

; mu: s_i leaves x_(3-i) out; lane i adds x_i, x_p(i), x_q(i) and c_mu_i.
add.16 acc,   [X], [CMU]                          ; x_k + cm1_k
add.16 [TS1], [X], acc@(1,0,3,2)                  ; + x_p(i) + c_mu_i
add.16 [SP],  [TS1], [X]@(2,3,0,1)                ; + x_q(i)
xor.16 [S],   [ZERO], [SP]<<<(1,4,9,11)           ; s_i = rotl(s'_i, r_mu_i)
xor.16 [V],   [S], [SP]@(1,2,3,0)<<<(4,9,11,1)    ; ^ s_(i+1)
xor.16 [MU],  [V], [SP]@(2,3,0,1)<<<(9,11,1,4)    ; ^ s_(i+2): lane i = mu_(i+1)

; nu: t_i leaves y_1, y_0, y_3, y_2 out; lane i adds y_i, y_p(i), y_q(i) and c_nu_i.
.if YIN
add.16 acc,   xin, [CNU], in [Y]                  ; Y arrives and is stored meanwhile
.else
add.16 acc,   [Y], [CNU]
.endif
add.16 [TT1], [Y], acc@(2,3,0,1)
add.16 [TP],  [TT1], [Y]@(3,2,1,0)
xor.16 [TR],  [ZERO], [TP]<<<(2,5,7,13)           ; t_i
xor.16 [W],   [TR], [TP]@(2,3,0,1)<<<(7,13,2,5)   ; ^ t_(i+2)
xor.16 [NU],  [W], [TP]@(3,0,1,2)<<<(13,2,5,7)    ; ^ t_(i+3): lane i = nu_(i+1)

; sigma
.if EMIT
add.16 [OUT], [MU], [NU], out
.else
add.16 [OUT], [MU], [NU]
.endif
