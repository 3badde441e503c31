"""What a hostile model file costs to refuse: an ``.npz`` of a few MiB holding, beside the
arrays a Linear(2, 3) expects, an unexpected member of 3 GiB of zeros (deflate packs them a
thousandfold). Loaded by this checkout and by the commit before issue 12, each in a fresh
process, in turns: seconds, growth of peak memory, and what ``load`` raised.

    python benchmarks/hostile_load.py [--rounds 3] [--gib 3] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from turns import baseline_argument, contenders, in_turns

import topograd as tg

BEFORE_ISSUE_12 = "d64185c"
CHUNK = 64 * 1024 * 1024


def hostile_file(folder: Path, gib: float) -> Path:
    """A good Linear(2, 3) file plus ``extra.npy``: a float64 array of ``gib`` GiB of zeros."""
    good = folder / "good.npz"
    tg.nn.Linear(2, 3).save(good)
    path = folder / "hostile.npz"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name in source.namelist():
            out.writestr(name, source.read(name))
        count = int(gib * 2**30) // 8
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": "<f8", "fortran_order": False, "shape": (count,)}
        )
        with out.open("extra.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            zeros, left = bytes(CHUNK), count * 8
            while left:
                member.write(zeros[: min(CHUNK, left)])
                left -= min(CHUNK, left)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gib", type=float, default=3.0)
    baseline_argument(parser)
    parser.set_defaults(baseline=BEFORE_ISSUE_12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = hostile_file(Path(folder), args.gib)
        size = path.stat().st_size
        chosen = contenders(["topograd"], args.baseline, {"topograd"})
        results = in_turns("load_step.py", chosen, args.rounds, str(path))
    print(f"{path.name}: {size / 2**20:.1f} MiB on disk, an unexpected member of {args.gib} GiB")
    print("| topograd | seconds | peak memory growth | outcome |")
    print("|---|---|---|---|")
    for label, runs in results.items():
        seconds = statistics.median(r["seconds"] for r in runs)
        growth = statistics.median(r["peak growth"] for r in runs)
        outcome = runs[0]["outcome"].replace(str(path), path.name)
        print(f"| {label} | {seconds:.3f} s | {growth / 2**20:.1f} MiB | {outcome} |")


if __name__ == "__main__":
    main()
