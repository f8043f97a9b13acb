"""Overall's two weights live with the stages' weights in scoring/rubric.yaml (docs/scoring.md
"Overall"): scoring reads them there, a rubric with bad ones does not load, and the site's
templates print the rubric's numbers rather than their own."""
from __future__ import annotations

from pathlib import Path

import pytest

from automedbench.scoring.overall import overall_score
from automedbench.scoring.rubric import RUBRIC_PATH, load_rubric

TEMPLATES = Path(__file__).resolve().parents[1] / "src" / "automedbench" / "report" / "templates"


def _rubric_with(tmp_path: Path, overall: str) -> Path:
    text = RUBRIC_PATH.read_text()
    start = text.index("overall:")
    end = text.index("stages:")
    path = tmp_path / "rubric.yaml"
    path.write_text(text[:start] + overall + text[end:])
    return path


def test_the_shipped_rubric_weighs_agentic_and_task_equally():
    assert load_rubric().overall == {"agentic": 0.5, "task": 0.5}
    assert overall_score(0.8, 0.4) == pytest.approx(0.6)
    assert overall_score(None, 0.4) is None and overall_score(0.8, None) is None


def test_overall_follows_the_rubric_weights(tmp_path):
    rubric = load_rubric(_rubric_with(tmp_path, "overall:\n  agentic: 0.25\n  task: 0.75\n"))
    assert overall_score(0.8, 0.4, rubric) == pytest.approx(0.25 * 0.8 + 0.75 * 0.4)


@pytest.mark.parametrize("overall, why", [
    ("", "exactly the keys agentic and task"),
    ("overall:\n  agentic: 0.5\n", "exactly the keys agentic and task"),
    ("overall:\n  agentic: 0.6\n  task: 0.6\n", "sum to 1"),
    ("overall:\n  agentic: -0.5\n  task: 1.5\n", ">= 0"),
])
def test_a_rubric_with_bad_overall_weights_does_not_load(tmp_path, overall, why):
    with pytest.raises(ValueError, match=why):
        load_rubric(_rubric_with(tmp_path, overall))


def test_templates_print_the_rubric_weights_not_their_own():
    for name in ("leaderboard.html.j2", "reference.html.j2"):
        text = (TEMPLATES / name).read_text()
        assert "OVERALL_WEIGHTS.agentic }} × Agentic + {{ OVERALL_WEIGHTS.task }} × Task" in text, name
        assert "0.5 × Agentic" not in text and "0.5 × Task" not in text, name
