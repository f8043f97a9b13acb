"""What scoring a docker run in its scoring container costs, vs scoring the same run in the
harness process (the baseline), in the same run: the reference agent on a 2-case demo task
in the docker sandbox, then `score_run` each way, interleaved.

    PYTHONPATH=src python bench/scoring_container.py [-n 5]

Needs a Docker engine (one that answers, else -- as root -- the private one the tests use)
and the agent image (built offline and cached on first use, as `sandbox build-image`).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5, help="scorings per side")
    args = ap.parse_args()
    from automedbench import api
    from automedbench.datasets import stage
    from automedbench.sandbox.docker.engine import ensure_engine
    from automedbench.sandbox.docker.image import build_image
    from automedbench.scoring.score_run import score_run

    engine, how = ensure_engine()
    if engine is None:
        raise SystemExit(f"no Docker engine: {how}")
    if engine.host:
        os.environ["DOCKER_HOST"] = engine.host
    try:
        os.environ["AUTOMEDBENCH_DOCKER_IMAGE"] = build_image(log=lambda _m: None).image_id
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            stage("mni-brain-lesion", root / "data", n_cases=2, quiet=True)
            run = api.run_one("brain-lesion-seg", "standard", "reference", root / "runs", api.RunOptions(sandbox="docker",
                              data_root=root / "data", network=False)).run_dir
            here: list[float] = []
            boxed: list[float] = []
            for i in range(args.n):
                t = time.perf_counter()
                r = api.score(run)
                boxed.append(time.perf_counter() - t)
                if "scoring_container" not in r.versions:
                    raise SystemExit(f"not scored in a container: {r.versions.get('scored_outside_container')}")
                t = time.perf_counter()
                score_run(run, out_dir=root / f"here-{i}")
                here.append(time.perf_counter() - t)
            base, cont = statistics.median(here), statistics.median(boxed)
            print(f"in-process (baseline)  : median {base * 1000:7.0f} ms")
            print(f"scoring container      : median {cont * 1000:7.0f} ms   ratio {cont / base:5.1f}x   "
                  f"(+{(cont - base) * 1000:.0f} ms per run)   load {os.getloadavg()[0]:.1f}")
    finally:
        engine.stop()


if __name__ == "__main__":
    main()
