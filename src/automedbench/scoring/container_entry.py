"""What runs inside the scoring container of a docker run (sandbox/docker/backend.py:
`score_in_container`): score RUN_DIR in this process and write detail_report.json (+
judge.json) to OUT_DIR, recording where it was scored -- the container's hostname, network
namespace and network interfaces -- in the report's `versions`.

    python -m automedbench.scoring.container_entry RUN_DIR OUT_DIR
"""
from __future__ import annotations

import logging
import os
import socket
import sys
from pathlib import Path

from ..runs.layout import RunFiles, write_json_atomic
from .score_run import score_run


def where_scored() -> dict[str, str]:
    """This process's hostname, network namespace and interfaces (a scoring container: its
    own name, a namespace of its own, `lo` alone)."""
    try:
        netns = os.readlink("/proc/self/ns/net")
    except OSError as exc:
        netns = f"unknown ({exc.strerror})"
    return {"scoring_container": socket.gethostname(), "scoring_netns": netns,
            "scoring_interfaces": ",".join(sorted(name for _i, name in socket.if_nameindex()))}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m automedbench.scoring.container_entry RUN_DIR OUT_DIR", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    run_dir, out_dir = Path(args[0]), Path(args[1])
    # the host checked that the run is complete (or forced) before starting this container
    report = score_run(run_dir, force=True, out_dir=out_dir)
    report.versions.update(where_scored())
    write_json_atomic(RunFiles(out_dir).report, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
