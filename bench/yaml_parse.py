"""What libyaml buys every CLI call and run (automedbench/yamlfile.py): parsing all the YAML
the package ships (task folders, rubric, error codes, tiers, bands, calibration labels) with
PyYAML's pure-Python SafeLoader (the baseline) and with `yamlfile.safe_load`, interleaved, in
the same run, and checking both give the same objects.

    PYTHONPATH=src python bench/yaml_parse.py [-n 15]

Prints the median time of one pass over the files for each and the ratio.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import yaml

from automedbench import yamlfile


def one_pass(texts: list[str], load) -> float:
    t0 = time.perf_counter()
    for text in texts:
        load(text)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=15, help="passes of each (interleaved)")
    args = parser.parse_args()
    files = sorted(Path(yamlfile.__file__).parent.rglob("*.yaml"))
    texts = [f.read_text() for f in files]
    assert all(yamlfile.safe_load(t) == yaml.safe_load(t) for t in texts), "the two parsers disagree"
    python_s, libyaml_s = [], []
    for _ in range(args.n):
        python_s.append(one_pass(texts, yaml.safe_load))
        libyaml_s.append(one_pass(texts, yamlfile.safe_load))
    base, ours = statistics.median(python_s), statistics.median(libyaml_s)
    print(f"{len(files)} files, {sum(map(len, texts)) / 1024:.0f} KiB, libyaml in PyYAML: {yaml.__with_libyaml__}")
    print(f"PyYAML SafeLoader (baseline): {base * 1000:7.1f} ms per pass (median of {args.n})")
    print(f"yamlfile.safe_load:           {ours * 1000:7.1f} ms per pass")
    print(f"ratio baseline / ours: {base / ours:.1f}x")


if __name__ == "__main__":
    main()
