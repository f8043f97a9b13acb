"""AutoMedBench tasks inside Inspect AI (docs/agents.md "Inspect AI"): the sandbox provider
`automedbench` (sandbox.py) and an Inspect task per AutoMedBench task with its scorer (task.py).
Inspect loads this package through its entry point (pyproject.toml `[project.entry-points.inspect_ai]`),
which registers both; it needs the inspect-ai package (`pip install 'automedbench[inspect]'`)."""
from .sandbox import AutoMedBenchConfig, AutoMedBenchSandbox, as_call
from .task import SCORES, automedbench, automedbench_prompt, automedbench_scorer, inspect_values, score_values

__all__ = ["SCORES", "AutoMedBenchConfig", "AutoMedBenchSandbox", "as_call", "automedbench", "automedbench_prompt",
           "automedbench_scorer", "inspect_values", "score_values"]
