#!/usr/bin/env python3
"""The Python module's speed (docs/benchmarks.md, "Python").

  PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py evfl \\
      --samples ../shared/samples/bfevfl [--evfl /path/to/evfl/checkout] [--runs 5]
  PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py files FILE...

evfl: decode and encode of every .bfevfl/.bfevtm in --samples through
binschema (bytes -> Python value -> bytes) side by side with evfl
(zeldamods/evfl, pure Python: EventFlow.read, EventFlow.write) on the same
bytes. evfl is not part of binschema: give a checkout of it with --evfl (or
have it importable); the column is left out otherwise.

files: for each file (e.g. the 16 MiB files `build/bench/formats_bench
--sizes 16 --write-files DIR` writes), binschema.decode and binschema.encode;
beside them decode_text (the same C++ decode writing JSON text instead of
Python objects), decode with the document's events going nowhere (so
decode minus it is the cost of the Python objects) and the part of encode
that builds the text document from the Python value (the rest is the C++
text reader and encoder).

Times are the CPU time of this thread per call (time.thread_time), the
median of --runs runs (the fastest with --best), each repeating the call
for at least --min-time seconds, like bench/formats_bench.
"""

import argparse
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import binschema


STAT = statistics.median


def measure(fn, runs, min_time):
    fn()  # warm-up
    per_call = []
    for _ in range(runs):
        n = 0
        t0 = time.thread_time()
        while True:
            fn()
            n += 1
            t = time.thread_time() - t0
            if t >= min_time:
                break
        per_call.append(t / n)
    return STAT(per_call)


def conditions(args):
    here = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "diff", "--quiet", "HEAD"]).returncode != 0
    except OSError:
        commit, dirty = "unknown", False
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"python_bench {args.mode}, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, commit {commit}"
          + (" (with uncommitted changes)" if dirty else ""))
    print(f"{os.cpu_count()} cores, {cpu}; Python {platform.python_version()}; "
          f"load average before: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print()


def ms(t):
    return f"{t * 1e3:.3f}"


def bench_evfl(args):
    evfl = None
    if args.evfl:
        sys.path.insert(0, args.evfl)
    try:
        import evfl  # noqa: F811
    except ImportError:
        print("(evfl not importable: its columns are left out; give --evfl DIR)\n")
    files = sorted(p for p in Path(args.samples).iterdir() if p.suffix in (".bfevfl", ".bfevtm"))
    print("| file | bytes | binschema decode ms | binschema encode ms | evfl read ms | evfl write ms "
          "| evfl / binschema (decode + encode) | evfl writes the same bytes |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    tot_b = tot_e = 0.0
    for p in files:
        data = p.read_bytes()
        value = binschema.decode(data)
        assert binschema.encode(value) == data, p
        d = measure(lambda: binschema.decode(data), args.runs, args.min_time)
        e = measure(lambda: binschema.encode(value), args.runs, args.min_time)
        tot_b += d + e
        row = [p.name, str(len(data)), ms(d), ms(e)]
        if evfl:
            def read():
                f = evfl.EventFlow()
                f.read(data)
                return f

            flow = read()

            def write():
                out = io.BytesIO()
                flow.write(out)
                return out.getvalue()

            same = write() == data
            er = measure(read, args.runs, args.min_time)
            ew = measure(write, args.runs, args.min_time)
            tot_e += er + ew
            row += [ms(er), ms(ew), f"{(er + ew) / (d + e):.1f}x", "yes" if same else "no"]
        else:
            row += ["", "", "", ""]
        print("| " + " | ".join(row) + " |")
    if evfl:
        print(f"| all {len(files)} | | | | | | {tot_e / tot_b:.1f}x | |")
    print(f"\nload average after: {' '.join(open('/proc/loadavg').read().split()[:3])}")


def bench_files(args):
    print("| file | MiB | decode ms | MB/s | decode_text JSON ms | decode without Python objects ms "
          "| Python objects ms | encode ms | MB/s | of which value -> text document ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.files:
        data = Path(name).read_bytes()
        names = [f["name"] for f in binschema.formats()]
        fmt = Path(name).suffix[1:] if Path(name).suffix[1:] in names else None  # AL has no magic
        value = binschema.decode(data, fmt)
        assert binschema.encode(value) == data, name
        d = measure(lambda: binschema.decode(data, fmt), args.runs, args.min_time)
        dt = measure(lambda: binschema.decode_text(data, "json", fmt), args.runs, args.min_time)
        dw = measure(lambda: binschema._binschema._decode_walk(data, fmt), args.runs, args.min_time)
        e = measure(lambda: binschema.encode(value), args.runs, args.min_time)
        eb = measure(lambda: binschema._binschema._build_doc(value), args.runs, args.min_time)
        mb = len(data) / 1e6
        print(f"| {Path(name).name} | {len(data) / 2**20:.1f} | {ms(d)} | {mb / d:.1f} | {ms(dt)} | {ms(dw)} "
              f"| {ms(d - dw)} | {ms(e)} | {mb / e:.1f} | {ms(eb)} |", flush=True)
    print(f"\nload average after: {' '.join(open('/proc/loadavg').read().split()[:3])}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["evfl", "files"])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--samples", default=str(Path(__file__).resolve().parents[2] / "shared/samples/bfevfl"))
    ap.add_argument("--evfl", help="a checkout of zeldamods/evfl (the folder holding evfl/)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--best", action="store_true",
                    help="the fastest run instead of the median (a loaded machine: the least disturbed run)")
    args = ap.parse_intermixed_args()
    global STAT
    if args.best:
        STAT = min
    conditions(args)
    if args.mode == "evfl":
        bench_evfl(args)
    else:
        bench_files(args)


if __name__ == "__main__":
    main()
