#!/usr/bin/env python3
"""Predicted ARM64 speed of bitweave's ARM kernels, from the compiled code: never measured.

For each kernel, the innermost loop of the aarch64 binary's function that holds the most
AES instructions (one batch group, or one block of a chain; for bitsliced DES, two rounds
marked by their round-key loads) is disassembled and given to
llvm-mca with LLVM's scheduling model of a core (Neoverse N1, V1, V2: the models encode
Arm's Software Optimization Guides). Printed per kernel and core: llvm-mca's cycles per
iteration as core cycles per byte, its throughput bound for the same instructions (the
busiest execution resource, "Block RThroughput"), and the share of that bound reached.
A loop-carried chain (CBC encryption) is bound by latency, not throughput, and the share
says so. Emulation (qemu) checks these kernels' bytes; no ARM hardware timed them.

Usage: predict_arm.py BINARY [LLVM_SUFFIX]   (e.g. target/aarch64-.../release/bitweave -19)
"""
import re
import subprocess
import sys

BINARY = sys.argv[1]
SUFFIX = sys.argv[2] if len(sys.argv) > 2 else ""
CORES = ["neoverse-n1", "neoverse-v1", "neoverse-v2"]
ITERATIONS = 300

# (label, symbol fragment, mnemonic that marks the loop, its count per 16-byte block:
#  "nr" for AES's round count, a number, or ("bytes", B, T): the loop covers B bytes and
#  each loop nested in it runs T times; whether iterations depend on each other; the
#  loop's exact count of that mnemonic where several instances share the symbol, else 0;
#  optionally the key-size label, else AES's from the round count or "128")
KERNELS = [
    ("aes ecb enc", "3aes3arm5crypt", "aese", "nr", False, 0),
    ("aes ecb dec", "3aes3arm5crypt", "aesd", "nr", False, 0),
    ("aes ctr", "3aes3arm3ctr", "aese", "nr", False, 0),
    ("aes cbc dec", "3aes3arm15cbc_decrypt_one", "aesd", "nr", False, 0),
    ("aes cbc/cfb/ofb enc chain", "3aes3arm12single_chain", "aese", "nr", True, 0),
    # The batch's rounds on two groups of four blocks in the lanes (`rounds_in_step` with
    # N = 2, not inlined into `crypt_lanes`): a round loop of 2 x 3 G, four blocks sharing
    # each AESE, so 48 G per block / 4 = 12 AESE per 16 bytes.
    ("seed ecb/ctr/decryption (8 blocks in lanes)", "4seed3arm14rounds_in_step", "aese", 12, False, 6),
    ("seed cbc/cfb/ofb enc chain", "4seed3arm5chain", "aese", 48, True, 0),
    # Bitsliced DES, two rounds per loop iteration. NEON (`sliced128`, 128 blocks): each
    # round broadcasts its 48 round-key masks with `ld1r`, so 96 mark the loop, and a
    # 16-byte pair of blocks is 2/128 of a batch's 16 x 48 = 768 of them: 12. The portable
    # `sliced64` (u64 lanes, 64 blocks) for comparison: its S-box circuits lower to 45 `orn`
    # a round, 90 a loop, 720 a batch, 22.5 per 16 bytes. Single DES; 3DES is 3x the c/B.
    ("des ecb/ctr/cbc-dec, sliced128 (NEON)", "5slice3arm10neon_inner", "ld1r", 12, False, 96, "56"),
    ("des ecb/ctr/cbc-dec, sliced64 (u64)", "5slice5width10run_kernel", "orn", 22.5, False, 90, "56"),
    # π-Cipher's whole-step kernel, one 128-byte batch per iteration (π64 2 blocks, π32 4,
    # π16 8 on NEON; the portable one on plain words, 2 blocks), both π of each block and
    # their three rounds: each π's round loop is nested in the batch loop and runs three
    # times, the third leaving mid-body. Marked by the rotates' second halves (`usra` on
    # NEON, `ror` on words), 8 μ/ν halves of 4 words a round; exact counts pick the
    # two-block instances of the portable kernel. Encryption, decryption and AD absorption
    # compile to the same loop but for the data's XOR: one row each size.
    ("π64 blocks, neon", "2pi4neon10run_blocks", r"usra\s+v\d+\.2d,", ("bytes", 256, 3), False, 0, "-"),
    ("π32 blocks, neon", "2pi4neon10run_blocks", r"usra\s+v\d+\.4s,", ("bytes", 256, 3), False, 0, "-"),
    ("π16 blocks, neon", "2pi4neon10run_blocks", r"usra\s+v\d+\.8h,", ("bytes", 256, 3), False, 0, "-"),
    ("π64 blocks, portable (2 per batch)", "2pi6scalar10run_blocks", r"ror\s+x\d+,", ("bytes", 128, 3), False, 142, "-"),
    ("π32 blocks, portable (2 per batch)", "2pi6scalar10run_blocks", r"ror\s+w\d+,", ("bytes", 64, 3), False, 144, "-"),
    # GHASH on PMULL (`seal`'s default suite, aes-256-gcm, hashes with it): eight blocks
    # per loop iteration, Karatsuba's three 64 x 64 products each (24 `pmull`), one
    # reduction. Independent of the key size.
    ("ghash pmull (8 blocks per reduction)", "3gcm5pmull13update_blocks", "pmull", 3, False, 24, "-"),
]
BRANCH = re.compile(r"(b\.\w+|b|cbnz|cbz|tbnz|tbz)\s")


def run(*cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout


def symbols():
    out = run(f"llvm-objdump{SUFFIX}", "-t", BINARY)
    return [line.split()[-1] for line in out.splitlines() if " F .text" in line]


def disassemble(sym):
    out = run(
        f"llvm-objdump{SUFFIX}", "-d", "--mattr=+aes,+neon", "--no-show-raw-insn",
        f"--disassemble-symbols={sym}", BINARY,
    )
    ins = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S.*)$", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).split("<")[0].strip()))
    return ins


def busiest_loop(ins, mnemonic, exact=0):
    """The (start, end) of the backward-branch loop with the most `mnemonic`s (exactly
    `exact` of them, when given), smallest first on ties (the innermost), and that count."""
    best = None
    for addr, text in ins:
        m = re.match(r"(?:b\.\w+|b|cbnz|cbz|tbnz|tbz)\s+(?:\w+,\s*)*(?:#\d+,\s*)?0x([0-9a-f]+)", text)
        if not m or int(m.group(1), 16) > addr:
            continue
        lo = int(m.group(1), 16)
        count = sum(1 for a, t in ins if lo <= a <= addr and re.match(mnemonic + r"\s", t))
        key = (count, -(addr - lo))
        if exact and count != exact:
            continue
        if count and (best is None or key > best[0]):
            best = (key, lo, addr)
    if best is None:
        return None
    return best[1], best[2], best[0][0]


def bytes_and_rounds(count, per_block):
    """Bytes one loop iteration covers (16 per block; a loop over rounds covers part of
    one), and AES's round count where the kernel is AES."""
    if isinstance(per_block, tuple):
        return per_block[1], None
    if per_block != "nr":
        return 16 * count / per_block, None
    for nr in (10, 12, 14):
        if count % nr == 0 and count // nr in (1, 2, 4, 8):
            return 16 * count // nr, nr
    return None, None


def loop_text(ins, lo, hi, trips):
    """The instructions of the loop [lo, hi] without branches, each loop nested in it
    written out `trips` times: the last time only up to its exit (the first forward
    branch past its end)."""
    inner = {}
    for addr, text in ins:
        m = re.match(r"(?:b\.\w+|b|cbnz|cbz|tbnz|tbz)\s+(?:\w+,\s*)*(?:#\d+,\s*)?0x([0-9a-f]+)", text)
        if m and lo < int(m.group(1), 16) < addr < hi:
            inner[int(m.group(1), 16)] = addr
    out, skip_to = [], -1
    for addr, text in ins:
        if not lo <= addr <= hi or addr <= skip_to:
            continue
        if trips and addr in inner:
            end = inner[addr]
            body = [(a, t) for a, t in ins if addr <= a <= end]
            exit_at = next(
                (a for a, t in body if BRANCH.match(t) and (m := re.search(r"0x([0-9a-f]+)", t))
                 and int(m.group(1), 16) > end),
                end,
            )
            for trip in range(trips):
                last = trip == trips - 1
                out += [t for a, t in body if (not last or a <= exit_at) and not BRANCH.match(t)]
            skip_to = end
            continue
        if not BRANCH.match(text):
            out.append(text)
    return "".join(t + "\n" for t in out)


def mca(text, core):
    out = run(
        f"llvm-mca{SUFFIX}", "-mtriple=aarch64", f"-mcpu={core}", "-mattr=+aes,+neon",
        f"-iterations={ITERATIONS}", stdin=text,
    )
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))
    bound = float(re.search(r"Block RThroughput:\s+([\d.]+)", out).group(1))
    return cycles / ITERATIONS, bound


def main():
    syms = symbols()
    print(f"# Predicted by llvm-mca{SUFFIX} from {BINARY} (core cycles per byte; NOT measured)")
    print("| kernel | key | core | cycles/iteration | bytes/iteration | predicted c/B | bound c/B | share of bound |")
    print("|---|---|---|---|---|---|---|---|")
    found = 0
    for label, fragment, mnemonic, per_block, serial, exact, *key_label in KERNELS:
        rows = []
        for sym in (s for s in syms if fragment in s):
            ins = disassemble(sym)
            loop = busiest_loop(ins, mnemonic, exact)
            if loop is None:
                continue
            lo, hi, count = loop
            nbytes, nr = bytes_and_rounds(count, per_block)
            if not nbytes:
                continue
            trips = per_block[2] if isinstance(per_block, tuple) else 0
            text = loop_text(ins, lo, hi, trips)
            rows.append((nr or 0, nbytes, text))
        seen = set()
        for nr, nbytes, text in sorted(rows):
            # Several instances of one kernel (encryption and decryption of the bitsliced
            # DES, say) compile to the same loop: one row per key size and batch.
            if (nr, nbytes) in seen:
                continue
            seen.add((nr, nbytes))
            key = key_label[0] if key_label else {10: "128", 12: "192", 14: "256"}.get(nr, "128")
            for core in CORES:
                per_iter, bound = mca(text, core)
                share = f"{100 * bound / per_iter:.0f} %"
                if serial:
                    share += " (serial: latency-bound)"
                print(
                    f"| {label} | {key} | {core} | {per_iter:.1f} | {nbytes:g} | "
                    f"{per_iter / nbytes:.3f} | {bound / nbytes:.3f} | {share} |"
                )
            found += 1
    if found == 0:
        sys.exit("predict_arm: no ARM kernel found in the binary (was it built for aarch64?)")


if __name__ == "__main__":
    main()
