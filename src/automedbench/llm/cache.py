"""On-disk cache of LLM verdicts (the workflow judge's and the answer judge's), so re-judging
unchanged input costs nothing. One JSON file per key under the cache dir:
`$AUTOMEDBENCH_JUDGE_CACHE`, else `~/.cache/automedbench/judge`. What goes into a key is the
caller's business (scoring/judge/cache.py for the workflow judge, llm/answer_judge.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..home import home

ENV_DIR = "AUTOMEDBENCH_JUDGE_CACHE"


def default_cache_dir() -> Path:
    env = os.environ.get(ENV_DIR)
    return Path(env) if env else home() / "judge"   # AUTOMEDBENCH_HOME moves every cache (README)


def sha256_text(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()



class JudgeCache:
    def __init__(self, root: Path | str | None = None):
        self.root = Path(root) if root is not None else default_cache_dir()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        p = self.path(key)
        if not p.is_file():
            return None
        try:
            return json.loads(p.read_text())
        except (OSError, json.JSONDecodeError):
            return None

    def put(self, key: str, value: dict[str, Any]) -> None:
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(value, fh, indent=1, sort_keys=True)
        os.replace(tmp, p)
