; pi32 ARX operation block  OUT = X * Y  on the PPE, 2x32-bit lanes.
; A chunk is two coefficient-memory words: (w0, w1) at CH+0 and (w2, w3) at CH+1.
; Bound by the driver: X, Y, OUT, T, ZERO, CMU, CNU, YIN, EMIT.
;
; The sums pair naturally as (s0,s1), (s2,s3); the XOR stage needs (s3,s0), (s1,s2) so that
; mu_j = (s0^s1^s2^s3) ^ s_(j+2) lands as (mu1,mu2), (mu3,mu0), the lane order sigma needs.
; The re-pairing uses the half-word write enables (.lo/.hi).
.width 32
.data CMU: mu0, mu1, mu2, mu3
.data CNU: nu0, nu1, nu2, nu3
.equ U,   T+0
.equ G0,  T+1      ; (s0', s1')
.equ G1,  T+2      ; (s2', s3')
.equ H0,  T+3      ; (s3, s0)
.equ H1,  T+4      ; (s1, s2)
.equ P,   T+5
.equ Q,   T+6      ; (S, S), S = s0^s1^s2^s3
.equ MU,  T+7      ; (mu1, mu2), (mu3, mu0)
.equ UY,  T+9
.equ F0,  T+10     ; (t0', t1')
.equ F1,  T+11     ; (t2', t3')
.equ K0,  T+12     ; (t1, t2)
.equ K1,  T+13     ; (t3, t0)
.equ PY,  T+14
.equ QY,  T+15
.equ NU,  T+16     ; (nu1, nu2), (nu3, nu0)

; mu sums
add.32 [U],  [X], [X+1]                 ; (x0+x2, x1+x3)
.if YIN
add.32 acc,  [CMU], [X]@(1,0), in [Y]   ; (c0+x1, c1+x0); y0,y1 arrive
.else
add.32 acc,  [CMU], [X]@(1,0)
.endif
add.32 [G0], [U], acc                   ; (s0', s1')
.if YIN
add.32 acc,  [CMU+1], [X+1]@(1,0), in [Y+1]
.else
add.32 acc,  [CMU+1], [X+1]@(1,0)       ; (c2+x3, c3+x2)
.endif
add.32 [G1], [U], acc                   ; (s2', s3')
; rotate and re-pair
xor.32 [H0].lo, [ZERO], [G1]@(1,1)<<<23 ; s3
xor.32 [H0].hi, [ZERO], [G0]@(0,0)<<<5  ; s0
xor.32 [H1].lo, [ZERO], [G0]@(1,1)<<<11 ; s1
xor.32 [H1].hi, [ZERO], [G1]@(0,0)<<<17 ; s2
xor.32 [P],  [H0], [H1]                 ; (s3^s1, s0^s2)
xor.32 [Q],  [P], [P]@(1,0)             ; (S, S)
xor.32 [MU], [Q], [H0]                  ; (mu1, mu2)
xor.32 [MU+1], [Q], [H1]                ; (mu3, mu0)

; nu sums
add.32 [UY], [Y], [Y+1]                 ; (y0+y2, y1+y3)
add.32 acc,  [CNU], [Y+1]@(1,0)         ; (c0+y3, c1+y2)
add.32 [F0], [UY], acc                  ; (t0', t1')
add.32 acc,  [CNU+1], [Y]@(1,0)         ; (c2+y1, c3+y0)
add.32 [F1], [UY], acc                  ; (t2', t3')
xor.32 [K0].lo, [ZERO], [F0]@(1,1)<<<10 ; t1
xor.32 [K0].hi, [ZERO], [F1]@(0,0)<<<19 ; t2
xor.32 [K1].lo, [ZERO], [F1]@(1,1)<<<29 ; t3
xor.32 [K1].hi, [ZERO], [F0]@(0,0)<<<3  ; t0
xor.32 [PY], [K0], [K1]
xor.32 [QY], [PY], [PY]@(1,0)           ; (S_t, S_t)
xor.32 [NU], [QY], [K0]                 ; (nu1, nu2)
xor.32 [NU+1], [QY], [K1]               ; (nu3, nu0)

; sigma: (sigma0, sigma1) = (mu1+nu1, mu2+nu2), (sigma2, sigma3) = (mu3+nu3, mu0+nu0)
.if EMIT
add.32 [OUT],   [MU], [NU], out
add.32 [OUT+1], [MU+1], [NU+1], out
.else
add.32 [OUT],   [MU], [NU]
add.32 [OUT+1], [MU+1], [NU+1]
.endif
