"""Where automedbench keeps what it builds and caches: `$AUTOMEDBENCH_HOME`, else
`~/.cache/automedbench`. Every cache lives under it unless its own variable says otherwise
(README "Environment variables"): data/ ($AUTOMEDBENCH_DATA), judge/ ($AUTOMEDBENCH_JUDGE_CACHE),
agent-runtime/, docker/, meteor/ (metrics/meteor_words.py)."""
from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    env = os.environ.get("AUTOMEDBENCH_HOME")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "automedbench"
