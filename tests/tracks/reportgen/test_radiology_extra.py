"""The `[radiology]` adapters against stand-in packages shaped like radgraph / f1chexbert (the
real ones download model weights). They check what OUR adapter does: hub offline unless
allowed, a failure becomes null with a one-line reason, CheXbert's micro P/R/F1 is read and
scaled by completion, and the aggregate names the components it used."""
import os
import sys
import textwrap

import pytest

from automedbench.scoring.task_score import aggregate_cases
from automedbench.tracks.base import CaseRecord, CaseStatus, ScoringContext
from automedbench.tracks.registry import get_track
from automedbench.tracks.reportgen import radiology
from automedbench.tracks.reportgen.text import Report

TRACK = get_track("report-generation")
OPTS = TRACK.parse_options({})


@pytest.fixture
def standins(tmp_path, monkeypatch):
    (tmp_path / "radgraph").mkdir()
    (tmp_path / "radgraph" / "__init__.py").write_text(textwrap.dedent("""
        import os
        SEEN = []
        class F1RadGraph:
            def __init__(self, reward_level):
                SEEN.append(os.environ.get("HF_HUB_OFFLINE"))
                if os.environ.get("HF_HUB_OFFLINE") == "1":
                    raise OSError("model weights are not in the local cache\\nand the hub is offline")
            def __call__(self, hyps, refs):
                return 0.5, [0.25 if h != r else 1.0 for h, r in zip(hyps, refs)], None, None
        """))
    (tmp_path / "f1chexbert").mkdir()
    (tmp_path / "f1chexbert" / "__init__.py").write_text(textwrap.dedent("""
        class F1CheXbert:
            def __init__(self, device):
                pass
            def __call__(self, hyps, refs):
                report = {"micro avg": {"precision": 0.8, "recall": 0.6, "f1-score": 0.75, "support": 9}}
                return 0.9, [], report, {}
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    yield
    for name in ("radgraph", "f1chexbert"):
        sys.modules.pop(name, None)


def test_offline_by_default_and_failure_is_null_with_reason(standins):
    scores, why = radiology.radgraph_f1(["a"], ["a"])
    assert scores is None and "RadGraph unavailable (offline)" in why and "\n" not in why
    assert "HF_HUB_OFFLINE" not in os.environ            # restored after the call
    scores, why = radiology.radgraph_f1(["a", "b"], ["a", "c"], allow_download=True)
    assert scores == [1.0, 0.25] and why == ""
    import radgraph
    assert radgraph.SEEN == ["1", None]


def test_aggregate_uses_the_weight_backed_components_when_they_run(standins, tmp_path):
    ref = Report.from_text("FINDINGS: small right pleural effusion.")
    recs = []
    for cid, status in (("a", CaseStatus.OK), ("b", CaseStatus.OK), ("c", CaseStatus.MISSING), ("d", CaseStatus.OK)):
        if status is CaseStatus.OK:
            pred = Report.from_text("FINDINGS: small right pleural effusion." if cid != "b" else "Lungs clear.")
            recs.append(CaseRecord(cid, {}, status, TRACK.score_case(pred, ref, OPTS, ScoringContext()),
                                   prediction=pred, reference=ref))
        else:
            recs.append(CaseRecord(cid, {}, status, reference=ref))
    agg = aggregate_cases(TRACK, recs, OPTS, ScoringContext(extras={"allow_weight_download": True}))
    assert agg.metrics["radgraph_f1"] == pytest.approx((1.0 + 0.25 + 1.0) / 4)    # missing study counts 0
    assert agg.metrics["chexbert_micro_f1"] == pytest.approx(0.75 * 3 / 4)        # × completion
    assert agg.metrics["chexbert_micro_p"] == pytest.approx(0.8 * 3 / 4)
    assert "radgraph_f1" in agg.components and "chexbert_micro_f1" in agg.components
    offline = aggregate_cases(TRACK, recs, OPTS, ScoringContext())
    assert offline.metrics["radgraph_f1"] is None and "offline" in offline.notes["radgraph_f1"]
    assert "radgraph_f1" not in offline.components and "chexbert_micro_f1" in offline.components
