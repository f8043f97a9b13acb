"""Attribute each tool call to a stage S1..S5.

1. Declared: the prompts ask the agent to start each code block with a stage tag, e.g.
   `# S3` or `# Stage: S3 validate` (first non-empty line). A declared tag wins.
2. Otherwise a documented heuristic on the code, in this order:
   - writes plan/ (plan.md, plan.png)                     -> s1
   - pip/conda install, nvidia-smi, cuda checks, downloads -> s2
   - the first execution that writes into outputs/<one case>  -> s3 (the pilot)
   - loops over cases writing outputs/                     -> s4
   - listing/verifying outputs after S4                    -> s5
   - anything else keeps the previous call's stage (s1 at the start).
"""
from __future__ import annotations

import re

_DECLARED = re.compile(r"^\s*(?:#|//|--)\s*(?:stage\s*[:=]?\s*)?S([1-5])\b", re.IGNORECASE)
_PLAN = re.compile(r"plan/|plan\.md|plan\.png")
_SETUP = re.compile(r"pip3? install|conda install|nvidia-smi|cuda\.is_available|from_pretrained|"
                    r"hf_hub_download|wget |curl |git clone")
_LOOP = re.compile(r"\bfor\b[^\n]*\b(case|cases|listdir|iterdir|glob|sorted)\b", re.IGNORECASE)
_OUTPUTS = re.compile(r"outputs")


def declared_stage(code: str) -> str | None:
    for line in code.splitlines():
        if line.strip():
            m = _DECLARED.match(line)
            return f"s{m.group(1)}" if m else None
    return None


def heuristic_stage(code: str, previous: str | None) -> str:
    if _PLAN.search(code):
        return "s1"
    if _SETUP.search(code):
        return "s2"
    if _OUTPUTS.search(code):
        if _LOOP.search(code):
            return "s4" if previous in (None, "s1", "s2", "s3", "s4") else "s5"
        return "s3" if previous in (None, "s1", "s2", "s3") else "s5"
    return previous or "s1"


def label(code: str, previous: str | None) -> tuple[str, bool]:
    """(stage, declared?)"""
    declared = declared_stage(code)
    if declared:
        return declared, True
    return heuristic_stage(code, previous), False
