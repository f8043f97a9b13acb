"""The run page shows the harness's per-output checks and a call's read-backs (docs/judge.md
"Per-output checks", docs/site.md "Run page"): what the judge's S3 rests on is on the page."""
import json

from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from tests.report.factories import build_report, write_run


def test_run_page_lists_each_calls_output_checks_and_read_backs(tmp_path):
    rep = build_report("checks-run", agent="alpha", task="seg-a", tier="lite")
    d = write_run(tmp_path / "runs", rep)
    unit = "/workspace/outputs/case_000"
    events = [
        {"type": "run_start", "t": 0.0, "data": {}},
        {"type": "tool_call", "t": 0.1, "turn": 1, "call_index": 1, "stage": "s3", "language": "python",
         "code": "pilot()", "kind": "execute_code"},
        {"type": "execution", "t": 1.0, "turn": 1, "call_index": 1, "stage": "s3", "duration_s": 0.9,
         "language": "python", "exit_code": 0, "stdout": "organ (99, 117, 95)\n", "stderr": "", "timed_out": False,
         "effects": {"written": [{"path": f"{unit}/organ.nii.gz", "op": "created", "size": 10, "sha256": "ab"}],
                     "deleted": [], "read": [], "read_back": [f"{unit}/organ.nii.gz"], "net": None,
                     "truncated": False, "recorder": "inotify"},
         "output_checks": [{"path": unit, "case_id": "case_000", "files": {f"{unit}/organ.nii.gz": "ab"},
                            "valid": False, "problem": "organ.nii.gz: shape (5, 5, 5), expected (99, 117, 95)",
                            "facts": {f"{unit}/organ.nii.gz": {"kind": "volume", "facts": {"shape": [5, 5, 5]}}}}]},
        {"type": "run_end", "t": 1.1, "kind": "submitted"},
    ]
    (d / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    out = tmp_path / "site"
    write_leaderboard(collect_reports([tmp_path / "runs"]), out)
    html = (out / "runs" / f"{run_slug(rep.run.run_id)}.html").read_text()
    assert "harness&#39;s check of the outputs written" in html or "harness's check of the outputs written" in html
    assert "read back (written, then opened again by this call)" in html
    assert "fails</span> organ.nii.gz: shape (5, 5, 5), expected (99, 117, 95)" in html
    assert "shape 5×5×5" in html
