"""The workflow judge's cache keys (the cache itself is llm/cache.py, shared with the answer
judge); where it lives and what is stored: docs/llm.md "Cache"."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ...llm.cache import sha256_text
from ...run_files import WorkspaceNames


def plan_hash(workspace: Path) -> str:
    """Hash of plan/plan.md and plan/plan.png (absent files hash as absent)."""
    h = hashlib.sha256()
    for rel in WorkspaceNames.PLAN_FILES:
        p = Path(workspace) / rel
        h.update(p.name.encode() + b"\0")     # the file's own name: the keys of earlier verdicts hold
        h.update(p.read_bytes() if p.is_file() else b"<absent>")
        h.update(b"\0")
    return h.hexdigest()


def cache_key(*, rubric_version: int | str, judge_model: str, digest_hash: str, plan_hash: str, **extra: Any) -> str:
    payload = {"rubric_version": str(rubric_version), "judge_model": judge_model,
               "digest": digest_hash, "plan": plan_hash, **{k: extra[k] for k in sorted(extra)}}
    return sha256_text(json.dumps(payload, sort_keys=True, default=str))
