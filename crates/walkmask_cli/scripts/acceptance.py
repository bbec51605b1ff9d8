#!/usr/bin/env python3
"""Runs `walkmask batch` over every Moving AI map with its scenarios and every
adventure-game walk mask in WALKMASK_DATA (default: the repository's testdata), and summarises the answers.

For each Moving AI map (maps/*/*.map with scenarios/*/*.map.scen, and
gppc2012/*.map with gppc2012/*.map.scen) it runs `walkmask batch MAP --scen SCEN`;
for each walk mask image under walkmasks/ (background art `bg.png` excluded) it
writes a file of random pixel pairs and runs `walkmask batch MASK --queries FILE
--rule alpha`.

Prints, per input: the number of queries, the statuses, the median and 95th
percentile of `micros`, and for scenarios the mean and maximum of length / optimal.
Exits 1 if any answer has status "error" or any scenario query is not "found"
(scenario lines whose start or goal is a cell the map itself blocks, as in some
older WC3 scenario files, are counted and reported apart).

Usage:
    cargo build --release -p walkmask_cli
    python3 crates/walkmask_cli/scripts/acceptance.py \
        [--bin target/release/walkmask] [--data "$WALKMASK_DATA"] [--pairs 2000] \
        [--planner fill] [--only SUBSTRING]
"""

import argparse
import collections
import glob
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile


def find_data(workspace):
    """The full benchmark sets WALKMASK_DATA names, else the repository's testdata."""
    return os.environ.get("WALKMASK_DATA") or os.path.join(workspace, "testdata")


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def run_batch(binary, args):
    proc = subprocess.run([binary, "batch"] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"walkmask batch {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


def passable_cells(map_path):
    """The rows of a Moving AI map and a function telling whether (x, y) is passable
    (`.`, `G`, `S`, the cells walkmask reads as walkable)."""
    with open(map_path) as f:
        lines = f.read().splitlines()
    rows = lines[lines.index("map") + 1 :]

    def passable(x, y):
        return 0 <= y < len(rows) and 0 <= x < len(rows[y]) and rows[y][x] in ".GS"

    return passable


def scen_queries(scen_path):
    with open(scen_path) as f:
        lines = [l.split() for l in f.read().splitlines()[1:] if l.strip()]
    return [tuple(int(v) for v in l[4:8]) for l in lines]


def summarise(name, answers, failures, scen, blocked_ends=()):
    """blocked_ends: indices of scenario queries whose start or goal is not passable
    on the map itself (a flaw of the scenario file): reported, not failures."""
    statuses = collections.Counter(a["status"] for a in answers)
    micros = [a["micros"] for a in answers if a["status"] != "error"]
    row = {
        "name": name,
        "queries": len(answers),
        "statuses": dict(statuses),
        "median_us": statistics.median(micros) if micros else float("nan"),
        "p95_us": percentile(micros, 95),
        "micros": micros,
    }
    for i, a in enumerate(answers):
        if a["status"] == "error":
            failures.append(f"{name}: query {i + 1}: {a.get('error')}")
        elif scen and a["status"] != "found" and i not in blocked_ends:
            failures.append(f"{name}: query {i + 1}: status {a['status']}")
    if scen:
        row["blocked_ends"] = len(blocked_ends)
        ratios = [
            a["length"] / a["optimal"]
            for i, a in enumerate(answers)
            if a["status"] == "found" and a["optimal"] > 0 and i not in blocked_ends
        ]
        row["ratios"] = ratios
        row["mean_ratio"] = statistics.fmean(ratios) if ratios else float("nan")
        row["max_ratio"] = max(ratios) if ratios else float("nan")
    return row


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    workspace = os.path.abspath(os.path.join(here, "..", "..", ".."))
    default_bin = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(workspace, "target")), "release", "walkmask")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=default_bin, help="the walkmask binary (default: %(default)s)")
    ap.add_argument("--data", default=None, help="data folder (default: $WALKMASK_DATA, else the repository's testdata)")
    ap.add_argument("--pairs", type=int, default=2000, help="random queries per walk mask image")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--planner", default="fill")
    ap.add_argument("--only", default="", help="run only inputs whose path contains this")
    ap.add_argument("--json", default=None, help="write the per-input summary here")
    ap.add_argument(
        "--approx",
        default="wc3maps512",
        type=lambda s: [x for x in s.split(",") if x],
        help="map sets whose scenario optimal lengths are known to be approximate "
        "(also reported separately; default: %(default)s)",
    )
    opts = ap.parse_args()

    if not os.path.isfile(opts.bin):
        print(f"error: no walkmask binary at {opts.bin}: run `cargo build --release -p walkmask_cli` or pass --bin")
        return 2
    data = opts.data or find_data(workspace)
    if not data or not os.path.isdir(data):
        print(f"note: no data folder at {data}; nothing to do")
        return 0
    mai = os.path.join(data, "movingai")
    jobs = []
    for m in sorted(glob.glob(os.path.join(mai, "maps", "*", "*.map"))):
        rel = os.path.relpath(m, os.path.join(mai, "maps"))
        jobs.append(("maps/" + rel, m, os.path.join(mai, "scenarios", rel + ".scen")))
    for m in sorted(glob.glob(os.path.join(mai, "gppc2012", "*.map"))):
        jobs.append(("gppc2012/" + os.path.basename(m), m, m + ".scen"))
    masks = sorted(
        p for p in glob.glob(os.path.join(data, "walkmasks", "**", "*.png"), recursive=True)
        if os.path.basename(p) != "bg.png"
    )

    rng = random.Random(opts.seed)
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, m, scen in jobs:
            if opts.only not in name:
                continue
            if not os.path.exists(scen):
                failures.append(f"{name}: no scenario file {scen}")
                continue
            answers = run_batch(opts.bin, [m, "--scen", scen, "--planner", opts.planner])
            passable = passable_cells(m)
            blocked = {
                i
                for i, (sx, sy, gx, gy) in enumerate(scen_queries(scen))
                if not (passable(sx, sy) and passable(gx, gy))
            }
            rows.append(summarise(name, answers, failures, True, blocked))
            print_row(rows[-1])
        for m in masks:
            name = os.path.relpath(m, data)
            if opts.only not in name:
                continue
            w, h = png_size(m)
            qfile = os.path.join(tmp, "q.txt")
            with open(qfile, "w") as f:
                for _ in range(opts.pairs):
                    f.write(f"{rng.randrange(w)} {rng.randrange(h)} {rng.randrange(w)} {rng.randrange(h)}\n")
            answers = run_batch(opts.bin, [m, "--queries", qfile, "--rule", "alpha", "--planner", opts.planner])
            rows.append(summarise(name, answers, failures, False))
            print_row(rows[-1])

    scen_rows = [r for r in rows if "ratios" in r]
    all_ratios = [x for r in scen_rows for x in r["ratios"]]
    total = sum(r["queries"] for r in rows)
    print()
    print(f"inputs: {len(rows)}, queries: {total}, error or non-found scenario answers: {len(failures)}")
    blocked = sum(r["blocked_ends"] for r in scen_rows)
    if blocked:
        print(f"scenario queries with a start or goal on a cell the map blocks (not counted): {blocked}")
    exact = [x for r in scen_rows if not any(a in r["name"] for a in opts.approx) for x in r["ratios"]]
    for label, ratios in [("all scenarios", all_ratios), (f"without {','.join(opts.approx)}", exact)]:
        if ratios:
            print(
                f"length / optimal, {label}: {len(ratios)} queries, "
                f"mean {statistics.fmean(ratios):.5f}, max {max(ratios):.5f}, "
                f"share <= 1.02: {sum(1 for x in ratios if x <= 1.02) / len(ratios):.5f}"
            )
    for f in failures[:20]:
        print("FAIL", f)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump([{k: v for k, v in r.items() if k not in ("micros", "ratios")} for r in rows], f, indent=1)
    return 1 if failures else 0


def print_row(r):
    extra = ""
    if "ratios" in r:
        extra = f"  len/opt mean {r['mean_ratio']:.4f} max {r['max_ratio']:.4f}"
        if r["blocked_ends"]:
            extra += f"  ({r['blocked_ends']} with blocked ends)"
    statuses = " ".join(f"{k}={v}" for k, v in sorted(r["statuses"].items()))
    print(
        f"{r['name']:<42} n={r['queries']:<6} {statuses:<28} "
        f"median {r['median_us']:9.1f} us  p95 {r['p95_us']:9.1f} us{extra}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
