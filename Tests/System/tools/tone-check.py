#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a recorded tone is: tone-check.py WAV [--last SECONDS] [--skip SECONDS]

Reads a 16-bit PCM WAV as the ALSA file plugin writes it while recording (its length fields may
still be unwritten: the data is taken to run to the end of the file), takes the last SECONDS of it
(default 1) and prints "frames N rate R hz F dbfs L": the frequency from the zero crossings of the
left channel (rising ones, interpolated), and the RMS level of both channels in its sounding 10 ms blocks in dB
below a full-scale sine's (a full-scale sine reads 0.0), with how many blocks sounded. Exit 1 when there is less than SECONDS of sound."""
import math
import struct
import sys


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    path = args[0]
    last = float(args[args.index("--last") + 1]) if "--last" in args else 1.0
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        print(f"{path}: not a WAV file", file=sys.stderr)
        return 2
    pos, rate, channels, bits, start = 12, 0, 0, 0, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if cid == b"fmt ":
            _, channels, rate, _, _, bits = struct.unpack("<HHIIHH", data[pos + 8:pos + 24])
        if cid == b"data":
            start = pos + 8
            break
        pos += 8 + size + (size & 1)
    if start is None or bits != 16 or channels < 1:
        print(f"{path}: no 16-bit data chunk (bits {bits}, channels {channels})", file=sys.stderr)
        return 2
    frame = 2 * channels
    frames = (len(data) - start) // frame
    want = int(last * rate)
    if frames < want or want < 2:
        print(f"frames {frames} rate {rate}: less than {last} s", file=sys.stderr)
        return 1
    first = start + (frames - want) * frame
    samples = struct.unpack(f"<{want * channels}h", data[first:first + want * frame])
    left = samples[0::channels]
    crossings = []
    for i in range(1, len(left)):
        a, b = left[i - 1], left[i]
        if a < 0 <= b:
            crossings.append(i - 1 + (-a) / (b - a) if b != a else i)
    if len(crossings) < 2:
        hz = 0.0
    else:
        hz = (len(crossings) - 1) * rate / (crossings[-1] - crossings[0])
    # The level of the sounding 10 ms blocks only: an underrun's silence (the emulated CPU falling
    # behind) is not a quieter tone. A full-scale sine's RMS is 32767/sqrt(2).
    block = max(1, rate // 100) * channels
    total, count, sounding, blocks = 0, 0, 0, 0
    for b in range(0, len(samples) - block + 1, block):
        chunk = samples[b:b + block]
        power = sum(s * s for s in chunk) / len(chunk)
        blocks += 1
        if power > (32767 * 32767 / 2) * 1e-6:  # above -60 dBFS
            total += power
            count += 1
            sounding += 1
    dbfs = 10 * math.log10(total / count / (32767 * 32767 / 2)) if count else -200.0
    print(f"frames {frames} rate {rate} hz {hz:.1f} dbfs {dbfs:.2f} sounding {sounding}/{blocks}")
    return 0


sys.exit(main())
