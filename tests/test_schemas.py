"""The saved-artifact schemas are a public contract: the committed files must match the models."""
import json
from pathlib import Path

from automedbench.runs.models import SCHEMA_VERSION, DetailReport
from automedbench.runs.schemas import render_schemas

SCHEMA_DIR = Path(__file__).parents[1] / "schemas"


def test_committed_schemas_match_models():
    for name, text in render_schemas().items():
        committed = (SCHEMA_DIR / name).read_text()
        assert committed == text, f"{name} changed: bump SCHEMA_VERSION and re-export (python -m automedbench.runs.schemas)"


def test_detail_report_public_keys():
    props = json.loads(render_schemas()["detail_report.schema.json"])["properties"]
    assert set(props) >= {"schema_version", "run", "stages", "active_stages", "agentic", "task", "overall",
                          "medal", "rating", "errors", "violations", "judge"}
    run_keys = set(DetailReport.model_fields["run"].annotation.model_fields)
    assert run_keys >= {"run_id", "agent", "model", "task", "track", "tier", "started_at", "wall_time_s", "turns",
                        "tokens_in", "tokens_out", "cost_usd", "submitted", "sandbox"}
    assert "profile_scores" in DetailReport.model_fields["task"].annotation.model_fields
    # a report made by this code says which schema it follows, as the committed schema documents it
    committed = json.loads((SCHEMA_DIR / "detail_report.schema.json").read_text())
    assert committed["properties"]["schema_version"]["default"] == SCHEMA_VERSION


def test_schema_1_0_reports_still_load():
    """A 1.0 case (no status) gets its status derived once, on load."""
    from automedbench.runs.models import CaseResult
    assert CaseResult.model_validate({"case_id": "a", "valid": False, "reason": "missing: no output folder"}).status == "missing"
    assert CaseResult.model_validate({"case_id": "a", "valid": False, "reason": "organ: NaN"}).status == "invalid"
    assert CaseResult.model_validate({"case_id": "a", "valid": True}).status == "ok"


def test_run_json_of_an_older_harness_still_loads_and_new_ones_stay_strict():
    import pytest
    from pydantic import ValidationError

    from automedbench.runs.layout import RunMeta
    run = {"run_id": "a", "agent": "x", "task": "t", "track": "s", "tier": "lite", "started_at": "now"}
    old = {"run": run, "dataset": "d", "dataset_root": "/x", "case_ids": ["a"], "lesion_positive": [True]}
    assert RunMeta.model_validate(old).case_ids == ["a"]          # 1.0 kept a per-track key here
    with pytest.raises(ValidationError):
        RunMeta.model_validate({**old, "harness_version": "0.1.0"})
