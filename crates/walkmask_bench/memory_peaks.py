#!/usr/bin/env python3
"""Peak memory of long CLI batches against single queries, measured with
/usr/bin/time -v (maximum resident set size).

    cargo build --release -p walkmask_cli
    python3 crates/walkmask_bench/memory_peaks.py "$CARGO_TARGET_DIR/release/walkmask"

Two masks: the demo lobby (assets/rooms/lobby.walk.png, 1920 x 1080, grey levels
are area ids) with 100,000 queries, and a generated 8192 x 8192 furnished room with
2,000 queries. Queries join random walkable pixels. Each batch's peak is compared
with the peaks of 20 single `walkmask path` runs of queries from the same set: the
ten the batch found heaviest (most pixels visited) and ten more.
Only the Python standard library is used.
"""

import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_grey_png(path):
    """(width, height, rows) of an 8-bit greyscale, non-interlaced PNG."""
    data = open(path, "rb").read()
    at, idat, width, height = 8, b"", 0, 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert (depth, color, interlace) == (8, 0, 0), "8-bit grey, not interlaced"
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    rows, prev = [], bytearray(width)
    for y in range(height):
        line = raw[y * (width + 1) : (y + 1) * (width + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for x in range(width):
            a = cur[x - 1] if x else 0
            b = prev[x]
            c = prev[x - 1] if x else 0
            if kind == 1:
                cur[x] = (cur[x] + a) & 255
            elif kind == 2:
                cur[x] = (cur[x] + b) & 255
            elif kind == 3:
                cur[x] = (cur[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (cur[x] + pred) & 255
        rows.append(bytes(cur))
        prev = cur
    return width, height, rows


def write_grey_png(path, width, height, rows):
    def chunk(kind, body):
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    raw = b"".join(b"\0" + row for row in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def big_room(size, rng):
    """A size x size room: walkable floor, 2,000 blocks of furniture, four long
    walls with doors."""
    grid = [bytearray(b"\xff" * size) for _ in range(size)]
    for _ in range(2000):
        x, y = rng.randrange(size), rng.randrange(size)
        w, h = rng.randrange(8, 120), rng.randrange(8, 120)
        for yy in range(y, min(y + h, size)):
            grid[yy][x : min(x + w, size)] = b"\0" * (min(x + w, size) - x)
    for i in range(1, 5):
        x = size * i // 5
        for y in range(size):
            if y % 1024 > 40:
                grid[y][x : x + 6] = b"\0" * 6
    return [bytes(r) for r in grid]


def walkable_sampler(width, rows, rng):
    cells = [(x, y) for y, row in enumerate(rows) for x in range(0, width, 3) if row[x]]
    return lambda: rng.choice(cells)


def peak_kib(args, keep_output=False):
    """The peak resident set size of running `args`, and its output if asked."""
    out = subprocess.run(
        ["/usr/bin/time", "-v"] + args,
        stdout=subprocess.PIPE if keep_output else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1))
    return peak, out.stdout


def measure(binary, mask, rule, sample, count, singles, tmp, name):
    queries = [(sample(), sample()) for _ in range(count)]
    qfile = os.path.join(tmp, name + ".txt")
    with open(qfile, "w") as f:
        for (sx, sy), (gx, gy) in queries:
            f.write(f"{sx} {sy} {gx} {gy}\n")
    batch, output = peak_kib([binary, "batch", mask, "--rule", rule, "--queries", qfile], True)
    # The single runs: the queries the batch found heaviest (most pixels visited),
    # and the first few.
    visited = [json.loads(line)["visited"] for line in output.splitlines()]
    assert len(visited) == count
    heaviest = sorted(range(count), key=lambda i: -visited[i])[: singles // 2]
    chosen = heaviest + [i for i in range(singles) if i not in heaviest][: singles - len(heaviest)]
    single = sorted(
        peak_kib(
            [binary, "path", mask, "--rule", rule]
            + ["--from", f"{queries[i][0][0]},{queries[i][0][1]}"]
            + ["--to", f"{queries[i][1][0]},{queries[i][1][1]}"]
        )[0]
        for i in chosen
    )
    median, most = single[len(single) // 2], single[-1]
    print(
        f"{name}: {count} queries, batch peak {batch / 1024:.1f} MiB; single queries "
        f"median {median / 1024:.1f} MiB, max {most / 1024:.1f} MiB; "
        f"batch / max single {batch / most:.2f}, batch / median single {batch / median:.2f}"
    )


def main():
    binary = sys.argv[1]
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        lobby = os.path.join(ROOT, "assets/rooms/lobby.walk.png")
        width, _, rows = read_grey_png(lobby)
        measure(binary, lobby, "indexed", walkable_sampler(width, rows, rng), 100_000, 20, tmp, "lobby")
        big = os.path.join(tmp, "big.png")
        rows = big_room(8192, rng)
        write_grey_png(big, 8192, 8192, rows)
        measure(binary, big, "luma", walkable_sampler(8192, rows, rng), 2_000, 20, tmp, "8192x8192")


if __name__ == "__main__":
    main()
