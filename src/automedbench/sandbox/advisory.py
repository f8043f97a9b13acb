"""Static advisory scan of agent code. It produces *warnings* for the trace, never
violations: prevention is the mount namespace, detection is the decoy watcher. A regex can
neither prove nor disprove an escape (`chr(47)+"data"` defeats any pattern), so nothing here
blocks or penalises a call on its own.

Two kinds:
  - "advisory": the code names something forbidden (private refs, harness paths, secrets).
  - "training_detected": the code looks like training / fine-tuning (docs/sandbox.md: inference
    only). The scoring side turns this into an integrity error code.
"""
from __future__ import annotations

import re
from typing import Any

_ADVISORY = [
    (re.compile(r"/data/private|\bprivate/[\w.-]+/"), "names the private reference tree"),
    (re.compile(r"/proc/(?:\d+|self|1|\*)/(?:root|environ|cwd|fd|mem)\b"), "inspects /proc of a process"),
    (re.compile(r"\b(?:OPENAI|ANTHROPIC|HF|HUGGING_FACE_HUB|AWS|GITHUB)_\w*(?:KEY|TOKEN|SECRET)\b"),
     "names an API credential variable"),
    (re.compile(r"\bautomedbench\b(?!\.)"), "names the benchmark harness"),
    (re.compile(r"\.\./\.\./\.\."), "deep relative traversal"),
]

_TRAINING = [
    (re.compile(r"\.backward\s*\("), ".backward("),
    (re.compile(r"\boptimi[sz]er\w*\.step\s*\("), "optimizer.step("),
    (re.compile(r"\.train\s*\(\s*(?:True)?\s*\)"), "model.train("),
    (re.compile(r"\bTrainer\s*\([^)]*\)\s*\.train\s*\(|\btrainer\.fit\s*\("), "Trainer.fit/train"),
]


def _line_of(code: str, pos: int) -> tuple[int, str]:
    line_no = code.count("\n", 0, pos) + 1
    start = code.rfind("\n", 0, pos) + 1
    end = code.find("\n", pos)
    return line_no, code[start: end if end != -1 else len(code)].strip()[:200]


def scan(language: str, code: str) -> list[dict[str, Any]]:
    """Warnings (dicts with kind, message, line, excerpt) for one piece of agent code."""
    out: list[dict[str, Any]] = []
    for pattern, why in _ADVISORY:
        m = pattern.search(code)
        if m:
            line, excerpt = _line_of(code, m.start())
            out.append({"kind": "advisory", "message": f"code {why}: {m.group(0)!r}",
                        "line": line, "excerpt": excerpt})
    for pattern, what in _TRAINING:
        m = pattern.search(code)
        if m:
            line, excerpt = _line_of(code, m.start())
            out.append({"kind": "training_detected",
                        "message": f"training code detected ({what}); the benchmark is inference-only",
                        "line": line, "excerpt": excerpt})
    return out
