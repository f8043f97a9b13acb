"""Load the rubric (scoring/rubric.yaml) and turn item verdicts into stage scores."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import get_args

from .. import yamlfile
from ..runs.models import StageId

RUBRIC_PATH = Path(__file__).with_name("rubric.yaml")
# the stage ids as the report schema types them (runs/models.py: StageId); rubric.yaml, which
# owns the stages' names, weights and items, must list exactly these, in this order
STAGES: tuple[StageId, ...] = get_args(StageId)


@dataclass(frozen=True)
class StageRubric:
    id: str
    name: str
    weight: float
    kind: str                      # items | ladder | deterministic
    judged: bool
    items: dict[str, str]
    not_applicable: dict[str, list[str]] = field(default_factory=dict)
    allowed: tuple[float, ...] = (0.0, 1.0)
    color: str = "#64748b"         # the site's and the analysis plots' colour of this stage

    def allowed_values(self) -> tuple[float, ...]:
        return self.allowed if self.kind == "ladder" else (0.0, 1.0)

    def not_applicable_in(self, tier: str) -> list[str]:
        """Items this tier does not ask for: never judged, never in the mean."""
        return list(self.not_applicable.get(tier, []))

    def applicable(self, tier: str) -> list[str]:
        skip = set(self.not_applicable_in(tier))
        return [i for i in self.items if i not in skip]

    def score(self, items: dict[str, float]) -> float:
        """Stage score from the item verdicts: the mean over the rubric items present (a
        tier's not-applicable items are absent, so they are left out, not passed); a ladder
        is its single item's value."""
        if self.kind == "ladder":
            return float(items[next(iter(self.items))])
        present = [i for i in self.items if i in items]
        if not present:
            raise ValueError(f"stage {self.id}: no applicable item verdicts to score")
        return sum(float(items[i]) for i in present) / len(present)


@dataclass(frozen=True)
class Rubric:
    version: int
    stages: dict[str, StageRubric]
    # Overall's weights of the two halves (docs/scoring.md#overall): {"agentic": a, "task": t}, a + t = 1
    overall: dict[str, float]

    @property
    def judged(self) -> list[str]:
        return [s for s, r in self.stages.items() if r.judged]

    def weights(self) -> dict[str, float]:
        return {s: r.weight for s, r in self.stages.items()}


def _colour(path: str, sid: str, value: object) -> str:
    """A stage's colour as `#rrggbb`: it goes into a style sheet, so nothing else passes."""
    if not isinstance(value, str) or not re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        raise ValueError(f"{path}: {sid}.color must be #rrggbb, got {value!r}")
    return value


def load_rubric(path: Path = RUBRIC_PATH) -> Rubric:
    return _load(str(path))


@lru_cache(maxsize=4)
def _load(path: str) -> Rubric:
    raw = yamlfile.safe_load(Path(path).read_text())
    stages = {}
    for sid, s in raw["stages"].items():
        stages[sid] = StageRubric(
            id=sid, name=s["name"], weight=float(s["weight"]), kind=s["kind"], judged=bool(s["judged"]),
            items=dict(s["items"]),
            not_applicable={k: list(v) for k, v in (s.get("not_applicable") or {}).items()},
            allowed=tuple(float(x) for x in s.get("allowed", (0.0, 1.0))),
            color=_colour(path, sid, s.get("color", StageRubric.color)))
    if tuple(stages) != STAGES:
        raise ValueError(f"{path}: stages must be exactly {STAGES}")
    for st in stages.values():
        for tier, ids in st.not_applicable.items():
            unknown = set(ids) - set(st.items)
            if unknown or set(ids) == set(st.items):
                raise ValueError(f"{path}: {st.id}.not_applicable.{tier}: "
                                 + (f"unknown items {sorted(unknown)}" if unknown else "leaves no item to score"))
    return Rubric(version=int(raw["version"]), stages=stages, overall=_overall_weights(path, raw.get("overall")))


def _overall_weights(path: str, raw: object) -> dict[str, float]:
    if not isinstance(raw, dict) or set(raw) != {"agentic", "task"}:
        raise ValueError(f"{path}: overall must have exactly the keys agentic and task, got {raw!r}")
    weights = {k: float(v) for k, v in raw.items()}
    if min(weights.values()) < 0 or abs(sum(weights.values()) - 1.0) > 1e-9:
        raise ValueError(f"{path}: overall weights must be >= 0 and sum to 1, got {weights}")
    return weights
