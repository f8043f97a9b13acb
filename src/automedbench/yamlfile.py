"""YAML parsing for every data file the harness reads: tasks, rubric, error codes, tiers,
bands, agent entries, sweep files (docs/architecture.md, "Layers": the bottom layer).

libyaml's C parser (PyYAML's `CSafeLoader`, built into PyYAML's wheels) reads the ~50 task
files ten times faster than PyYAML's pure-Python parser (0.02 s against 0.2 s), and every CLI
call and every run reads them. Both parse the same safe subset to the same objects. The C
parser's error messages leave out the line excerpt with its caret, so text that fails is
parsed again with the Python parser, whose message (and `yaml.YAMLError`) the caller gets.
"""
from __future__ import annotations

from typing import Any

import yaml

_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yamlfile.safe_load(text)`, with libyaml when PyYAML has it; same result, same errors."""
    try:
        return yaml.load(text, Loader=_FAST_LOADER)  # noqa: S506 - a safe loader (C or Python)
    except yaml.YAMLError:
        return yaml.safe_load(text)   # raises again, with the excerpt and caret a user can read
