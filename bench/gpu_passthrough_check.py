"""GPU pass-through check for the bwrap sandbox. Run on a machine with an NVIDIA GPU:

    PYTHONPATH=src python3 bench/gpu_passthrough_check.py \
        --python /opt/torch/.venv/bin/python3 --bind /opt/torch

It opens a BwrapSandbox (gpu=True, the given read-only binds), then runs inside it
`nvidia-smi -L` and `python -c "import torch; print(torch.cuda.is_available())"` (+ a small
CUDA matmul), and prints what came back and the device nodes that were bound. It does not
need the agent runtime (an empty one is bound unless --with-runtime). Exit code 0 only when
torch sees CUDA inside the sandbox.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

TORCH_PROBE = ("import torch; ok = torch.cuda.is_available(); print('cuda_available', ok);"
               "print('device', torch.cuda.get_device_name(0) if ok else None);"
               "x = torch.randn(1024, 1024, device='cuda') if ok else None;"
               "print('matmul_sum', float((x @ x).sum()) if ok else None)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default="/opt/torch/.venv/bin/python3", help="a python with torch (path inside = outside)")
    ap.add_argument("--bind", action="append", default=[], help="host dir bound read-only at the same path (repeatable)")
    ap.add_argument("--with-runtime", action="store_true", help="build/bind the agent runtime too")
    ap.add_argument("--network", action="store_true")
    args = ap.parse_args()

    from automedbench.sandbox import SandboxSpec
    from automedbench.sandbox.bwrap.backend import BwrapSandbox, gpu_dev_nodes

    tmp = Path(tempfile.mkdtemp(prefix="amb-gpucheck-"))
    (tmp / "public" / "case_0").mkdir(parents=True)
    runtime = None
    if not args.with_runtime:
        runtime = tmp / "empty-runtime"
        (runtime / "bin").mkdir(parents=True)
        (runtime / "boot").mkdir()
    nodes = gpu_dev_nodes()
    print("host device nodes:", nodes)
    spec = SandboxSpec(public_dir=tmp / "public", workspace=tmp / "ws", gpu=True, network=args.network,
                       extra_ro_binds=[(b, b) for b in args.bind], timeout_s=300)
    box = BwrapSandbox(spec, runtime_dir=runtime)
    print("privilege mode:", box.mode)
    print("gpu bind args:", " ".join(box.gpu_args))
    print("gpu env:", json.dumps(box.gpu_env))
    results = {}
    for label, lang, code in [
        ("identity", "bash", "id; ls /dev | tr '\\n' ' '"),
        ("nvidia-smi -L", "bash", "nvidia-smi -L"),
        ("torch", "bash", f"{args.python} -c \"{TORCH_PROBE}\""),
    ]:
        r = box.execute(lang, code, timeout_s=300)
        results[label] = r
        print(f"--- {label}: exit {r.exit_code} in {r.duration_s:.2f}s")
        print(r.stdout.rstrip())
        if r.stderr.strip():
            print("stderr:", r.stderr.strip()[-3000:])
    box.close()
    ok = "cuda_available True" in results["torch"].stdout
    print("RESULT:", "PASS torch sees CUDA inside bwrap" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
