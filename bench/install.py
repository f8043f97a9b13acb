"""How long `make`'s installer takes to set up the venv (scripts/install.py, docs/testing.md
"Setup time"): `-e .[test]` into a new venv with pip (the baseline, as before the installer
used uv) and with uv given pip's settings, in the same run, uv with an empty cache of its own
(a fresh machine). Needs the package registry, like `make`; takes ~2 min.

    python bench/install.py

Prints each install's wall time, whether both venvs hold the same distributions, and the ratio.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def install(venv: Path, env: dict[str, str]) -> tuple[float, list[str]]:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    t0 = time.monotonic()
    subprocess.run([python, str(ROOT / "scripts" / "install.py"), "-e", f"{ROOT}[test]"],
                   check=True, env=env, cwd=ROOT)
    took = time.monotonic() - t0
    frozen = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable"], capture_output=True,
                            text=True, check=True).stdout.split()
    return took, sorted(line for line in frozen if not line.startswith("uv=="))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="amb-install-bench-") as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("UV_")}
        pip_s, pip_dists = install(Path(tmp) / "pip", {**base, "AUTOMEDBENCH_INSTALL_WITH": "pip"})
        uv_s, uv_dists = install(Path(tmp) / "uv", {**base, "UV_CACHE_DIR": str(Path(tmp) / "uv-cache")})
    print(f"pip (baseline):           {pip_s:6.1f} s, {len(pip_dists)} distributions")
    print(f"uv, pip's settings, cold: {uv_s:6.1f} s, {len(uv_dists)} distributions"
          f" ({'the same versions' if pip_dists == uv_dists else 'DIFFERENT versions'})")
    print(f"ratio baseline / uv: {pip_s / uv_s:.1f}x")


if __name__ == "__main__":
    main()
