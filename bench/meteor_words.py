"""Benchmark: a process that scores reports, without and with METEOR's stored words.

    python bench/meteor_words.py [--reports 40] [--repeats 3]

What `automedbench score` of a report-generation run pays before its first METEOR: each
measurement is a fresh Python process that imports the track's scoring and scores the same N
(report, reference) pairs (bench/score_text.py `make_pairs`), with AUTOMEDBENCH_HOME pointing
at a folder of this run:
  baseline  the word store is empty (as before metrics/meteor_words.py, and on a machine's
            first scoring): nltk is imported and WordNet's index read;
  stored    the store holds the words (written by the baseline's process): neither is loaded.
Both must give the same METEOR values. CPU seconds of the child (user + system), best of
--repeats, and their ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = r"""
import json, sys
from automedbench.tracks.reportgen.scoring import study_metrics
from automedbench.tracks.reportgen.text import Report
pairs = json.loads(sys.stdin.read())
print(json.dumps([study_metrics(Report.from_text(h), Report.from_text(r))[0]["meteor"] for h, r in pairs]))
"""


def _child(pairs: list, home: Path) -> tuple[float, list]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(pairs), capture_output=True,
                          text=True, env={**os.environ, "AUTOMEDBENCH_HOME": str(home)}, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.loads(done.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from score_text import make_pairs

    pairs = make_pairs(args.reports, 0)
    root = Path(tempfile.mkdtemp(prefix="amb-bench-meteor-"))
    try:
        base, stored = [], []
        for i in range(args.repeats):
            home = root / f"home{i}"
            cpu, cold = _child(pairs, home)          # empty store: loads nltk and WordNet, writes the words
            base.append(cpu)
            cpu, warm = _child(pairs, home)          # the same words again, from the store
            stored.append(cpu)
            if warm != cold or any(v is None for v in cold):
                print(f"error: METEOR differs or is null ({cold[:3]} vs {warm[:3]})", file=sys.stderr)
                return 1
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{len(pairs)} report/reference pairs per process; identical METEOR values both ways")
    print(f"baseline (empty word store)   : {min(base):6.2f} CPU-s per process (best of {args.repeats})")
    print(f"stored   (words in the store) : {min(stored):6.2f} CPU-s per process")
    print(f"ratio stored / baseline       : {min(stored) / min(base):6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
