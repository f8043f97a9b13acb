"""Assemble the system prompt from templates + the task's per-tier information (docs/scoring.md#tiers).

Placeholders are `{name}`; every one must be known, and the rendered prompt is checked to
contain no unreplaced placeholder [rule] — a missing value is an error, never a silent gap.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from .. import yamlfile
from ..errors import UserError
from ..scoring.rubric import load_rubric
from ..tasks import Task, check_tier

HERE = Path(__file__).parent
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
TEMPLATE_ORDER = ("preamble", "environment", "task", "stages")


class PromptError(UserError, ValueError):
    pass


@lru_cache(maxsize=1)
def tiers() -> dict:
    return yamlfile.safe_load((HERE / "tiers.yaml").read_text())


def _fill(template: str, values: dict[str, str], name: str) -> str:
    def sub(m: re.Match) -> str:
        key = m.group(1)
        if key not in values:
            raise PromptError(f"template {name}: unknown placeholder {{{key}}}")
        return str(values[key])
    return _PLACEHOLDER.sub(sub, template)


def _model_info(task: Task, tier: str) -> str:
    if tier == "lite":
        req = "\n".join(f"    {r}" for r in task.tiers.lite.requirements) or "    (none)"
        return f"- Model/method to use: {task.tiers.lite.model}\n- Pinned requirements:\n{req}"
    if tier == "standard":
        return "- Candidate families:\n" + "\n".join(f"  - {c}" for c in task.tiers.standard.candidates)
    return f"- Clinical background: {task.tiers.pro.background}"


def _skill(task: Task, tier: str, stage: str) -> str:
    """Generic skill + the track's wording + the task's own skill file, in tiers that get skills."""
    if stage not in tiers()[tier]["skill_stages"]:
        return ""
    wording = task.track_impl.wording
    generic = HERE / "skills" / f"{stage}.md"
    text = generic.read_text().strip() if generic.is_file() else ""
    text = _fill(text, {"input_properties": wording.input_properties}, f"skills/{stage}.md")
    parts = [text, wording.skills.get(stage, ""), task.skill(tier, stage)]
    return "\n".join(p for p in parts if p)


def prompt_values(task: Task, tier: str, *, data_dir: str, workspace_dir: str,
                  exec_timeout_s: int = 600, network: bool | None = None) -> dict[str, str]:
    t = tiers()[tier]
    net = task.network if network is None else network
    return {
        "task_title": task.title,
        "data_dir": data_dir,
        "workspace_dir": workspace_dir,
        "input_files": ", ".join(task.input_files),
        "network_rule": ("available for installing packages and downloading public model weights."
                         if net else "OFF for this run: use what is installed."),
        "exec_timeout_s": str(exec_timeout_s),
        "time_limit_s": str(task.time_limit_s),
        "max_turns": str(task.max_turns),
        "tier_label": t["label"],
        "research": t["research"],
        "dependencies": t["dependencies"],
        "model_info": _model_info(task, tier),
        "description": task.description.strip(),
        "case_unit": task.case_unit,
        "output_contract": task.submission.contract(workspace_dir),
        "input_properties": task.track_impl.wording.input_properties,
        "plan_artifacts": ", ".join(t["plan_artifacts"]),
        **{f"skill_{s}": _skill(task, tier, s) for s in load_rubric().stages},
    }


def render_prompt(task: Task, tier: str, *, data_dir: str = "/data/public",
                  workspace_dir: str = "/workspace", exec_timeout_s: int = 600, network: bool | None = None) -> str:
    check_tier(tier)
    values = prompt_values(task, tier, data_dir=data_dir, workspace_dir=workspace_dir,
                           exec_timeout_s=exec_timeout_s, network=network)
    parts = [_fill((HERE / "templates" / f"{n}.md").read_text(), values, n).strip() for n in TEMPLATE_ORDER]
    text = re.sub(r"\n{3,}", "\n\n", "\n\n".join(parts)) + "\n"
    left = _PLACEHOLDER.findall(text)
    if left:
        raise PromptError(f"rendered prompt for {task.id}/{tier} has unreplaced placeholders: {left}")
    return text


def kickoff_message(task: Task, tier: str) -> str:
    return (f"Begin the {tiers()[tier]['label']} tier of task '{task.id}'. Work through S1 to S5 "
            "and call submit_results() when every case is done and verified.")
