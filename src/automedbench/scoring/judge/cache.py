"""On-disk cache of LLM judge verdicts, so re-judging an unchanged run costs nothing.

Key: sha256 over (rubric version, judge model, judge prompt version, task/tier, digest hash,
plan hash). One JSON file per key under the cache dir: `$AUTOMEDBENCH_JUDGE_CACHE`, else
`$AUTOMEDBENCH_HOME/judge` (~/.cache/automedbench/judge). Only complete verdicts (no null stage) are stored, so an
infrastructure failure is retried next time.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

ENV_DIR = "AUTOMEDBENCH_JUDGE_CACHE"


def default_cache_dir() -> Path:
    env = os.environ.get(ENV_DIR)
    from ...home import home
    return Path(env) if env else home() / "judge"


def sha256_text(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def plan_hash(workspace: Path) -> str:
    """Hash of plan/plan.md and plan/plan.png (absent files hash as absent)."""
    h = hashlib.sha256()
    for name in ("plan.md", "plan.png"):
        p = Path(workspace) / "plan" / name
        h.update(name.encode() + b"\0")
        h.update(p.read_bytes() if p.is_file() else b"<absent>")
        h.update(b"\0")
    return h.hexdigest()


def cache_key(*, rubric_version: int | str, judge_model: str, digest_hash: str, plan_hash: str,
              **extra: Any) -> str:
    payload = {"rubric_version": str(rubric_version), "judge_model": judge_model,
               "digest": digest_hash, "plan": plan_hash, **{k: extra[k] for k in sorted(extra)}}
    return sha256_text(json.dumps(payload, sort_keys=True, default=str))


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
