#!/usr/bin/env python3
"""Compares a player's raw output with the reference decoder's, sample for sample.

    pcm-compare.py REF.raw BITS OUT.raw FORMAT

REF.raw is `flac -d --force-raw-format --endian=little --sign=signed` output (BITS per sample in
BITS/8 bytes); for BITS that are not whole bytes (flac has no raw output then) REF.wav is `flac -d`'s
WAV, whose samples are left-justified in whole-byte containers. FORMAT is the ALSA format the player negotiated (S8, U8, S16_LE, S24_3LE, S24_LE,
S32_LE); samples are left-justified in it, as the engine writes them. Prints the first difference
and exits 1 when they differ.
"""
import sys

ref_path, bits, out_path, fmt = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
width = (bits + 7) // 8
ref = open(ref_path, "rb").read()
if ref_path.endswith(".wav"):
    offset, data = 12, b""
    while offset + 8 <= len(ref):
        chunk, size = ref[offset:offset + 4], int.from_bytes(ref[offset + 4:offset + 8], "little")
        if chunk == b"fmt ":
            channels = int.from_bytes(ref[offset + 10:offset + 12], "little")
            width = int.from_bytes(ref[offset + 20:offset + 22], "little") // channels
        if chunk == b"data":
            data = ref[offset + 8:offset + 8 + size]
            break
        offset += 8 + size + (size & 1)
    ref, bits = data, 8 * width  # left-justified: compare as the container's full width
out = open(out_path, "rb").read()
# container: (bytes per sample, bits that carry the sample, signed)
containers = {"S8": (1, 8, True), "U8": (1, 8, False), "S16_LE": (2, 16, True), "S24_3LE": (3, 24, True),
              "S24_LE": (4, 24, True), "S32_LE": (4, 32, True)}
if fmt not in containers:
    print(f"unknown device format {fmt!r}")
    sys.exit(1)
size, carried, signed = containers[fmt]
expected = bytearray()
for i in range(0, len(ref) - len(ref) % width, width):
    v = int.from_bytes(ref[i:i + width], "little", signed=True)
    v32 = v << (32 - bits)          # left-justified in 32 bits
    c = v32 >> (32 - carried)       # the container's top bits
    if not signed:
        c += 1 << (carried - 1)
    expected += (c & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
if bytes(expected) == out:
    sys.exit(0)
n = min(len(expected), len(out))
first = next((i for i in range(n) if expected[i] != out[i]), n)
print(f"first difference at byte {first} of {len(expected)} (got {len(out)})")
sys.exit(1)
