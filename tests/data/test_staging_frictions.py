"""Small frictions of staging your own data (issue 44, item 4; docs/your-task.md section 2):
question ids kept as given, and case ids that show the agent a label said at staging."""
from __future__ import annotations

import json
import shutil

import pytest
from PIL import Image

from automedbench.data import DatasetError
from automedbench.data.from_folder import stage_from_folder
from automedbench.tasks import get_task
from tests.conftest import spot_image


def vqa_json(root, rows):
    root.mkdir(parents=True)
    Image.fromarray(spot_image(32, [(10, 10, 4)])).save(root / "a.png")
    (root / "questions.json").write_text(json.dumps(rows))
    return root


def test_question_ids_are_kept_as_given_and_a_row_without_one_is_named_aloud(my_tasks_dir, tmp_path):
    rows = [{"qid": i, "img_name": "a.png", "question": f"Question {i}?", "answer": "yes"} for i in range(8)]
    rows.append({"img_name": "a.png", "question": "No id?", "answer": "no"})
    result = stage_from_folder("my-vqa-data", vqa_json(tmp_path / "vqa", rows),
                               get_task("my-vqa", [my_tasks_dir]), tmp_path / "data")
    assert sorted(result.staged) == ["0", "1", "2", "3", "4", "5", "6", "7", "q00009"]
    assert json.loads((result.paths.public / "0" / "question.json").read_text())["question_id"] == "0"
    assert "1 question(s) without a question_id were named by their row in questions.json: q00009" in result.notes
    assert any("q00009" in line for line in result.disk_lines(link=False))   # what the CLI prints


def test_a_question_id_that_cannot_name_a_folder_is_refused(my_tasks_dir, tmp_path):
    rows = [{"qid": "a/b", "img_name": "a.png", "question": "Q?", "answer": "yes"}]
    with pytest.raises(DatasetError, match=r"row 1: question id 'a/b' cannot name a case folder"):
        stage_from_folder("my-vqa-data", vqa_json(tmp_path / "vqa", rows),
                          get_task("my-vqa", [my_tasks_dir]), tmp_path / "data")


def test_the_layout_table_in_the_docs_is_each_tracks_own_list():
    """docs/your-task.md section 2's table names every built-in track's layouts in detection order."""
    import re
    from pathlib import Path

    from automedbench.tracks import get_track
    from automedbench.tracks.registry import all_tracks
    text = (Path(__file__).parents[2] / "docs" / "your-task.md").read_text()
    table = text.split("| track | layouts (detection order) |")[1].split("\n\n")[0]
    documented = {}
    for names, layouts in re.findall(r"^\| ([^|]+) \| ([^|]+) \|$", table, re.MULTILINE):
        for name in re.sub(r"\(.*?\)", "", names).split(","):
            documented[name.strip()] = re.findall(r"`([^`]+)`", layouts)
    built_in = {n for n, t in all_tracks().items() if type(t).__module__.startswith("automedbench.tracks.")}
    assert len(built_in) >= 7
    assert {n: documented.get(n) for n in built_in} == \
        {n: [lay.name for lay in get_track(n).folder_layouts()] for n in built_in}


def test_case_ids_that_show_a_label_are_warned_about_at_staging(my_tasks_dir, tmp_path):
    import numpy as np
    rng = np.random.default_rng(3)
    root = tmp_path / "named"
    for label, names in (("normal", ["test_normal_00", "test_Normal_01", "x2"]), ("abnormal", ["abnormal3", "y1"])):
        (root / label).mkdir(parents=True)
        for name in names:
            Image.fromarray(rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)).save(root / label / f"{name}.png")
    task = get_task("my-cls", [my_tasks_dir])
    result = stage_from_folder("my-cls-data", root, task, tmp_path / "data")
    warning = result.notes[0]
    assert warning.startswith("warning: 3 of 5 case id(s) contain a label name: "), warning
    assert "abnormal3 (abnormal)" in warning and "test_normal_00 (normal)" in warning and "test_Normal_01" in warning
    assert "x2" not in warning and "the agent sees case ids" in warning
    assert f"   {warning}" in [f"   {line}" for line in result.disk_lines(link=False)]   # printed by the CLI
    prov = json.loads((result.paths.root / "manifest.json").read_text())["provenance"]
    assert prov["notes"][0] == warning


def test_case_ids_without_a_label_name_stage_without_a_warning(imagefolder, my_tasks_dir, tmp_path):
    result = stage_from_folder("my-cls-data", imagefolder, get_task("my-cls", [my_tasks_dir]), tmp_path / "data")
    assert sorted(result.staged)[:2] == ["abn_0", "abn_1"]   # "abn", "nor": no label as a whole word
    assert not any(n.startswith("warning:") for n in result.notes)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_rename_cases_hides_the_label_and_the_reference_agent_still_scores(my_tasks_dir, tmp_path, monkeypatch):
    """`--rename-cases`: every case becomes case_<hash>, no warning is left, the manifest keeps the
    original ids, the same folder stages to the same names again, and a run scores on it."""
    import numpy as np

    from automedbench.api import run_one
    from automedbench.data.from_folder import hashed_case_ids
    from automedbench.runs.options import RunOptions
    rng = np.random.default_rng(5)
    root = tmp_path / "named"
    cls_yaml = my_tasks_dir / "my-cls" / "task.yaml"      # one labelled example per class, 6 cases
    cls_yaml.write_text(cls_yaml.read_text().replace("  labels: [normal, abnormal]\n",
                                                     "  labels: [normal, abnormal]\n  examples_per_class: 1\n"))
    for label, names in (("normal", ["test_normal_00", "test_normal_01", "test_normal_02", "test_normal_03"]),
                         ("abnormal", ["test_abnormal_00", "test_abnormal_01", "test_abnormal_02",
                                       "test_abnormal_03"])):
        (root / label).mkdir(parents=True)
        for name in names:
            Image.fromarray(rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)).save(root / label / f"{name}.png")
    task = get_task("my-cls", [my_tasks_dir])
    result = stage_from_folder("my-cls-data", root, task, tmp_path / "data", rename_cases=True)
    assert len(result.staged) == 6 and all(c.startswith("case_") and len(c) == 15 for c in result.staged)
    assert not any("normal" in c for c in result.staged)
    assert not any(n.startswith("warning:") for n in result.notes)
    # (public/_examples holds the labelled examples: their labels are meant to be seen)
    assert sorted(p.name for p in result.paths.public.iterdir() if p.name != "_examples") == sorted(result.staged)
    assert sorted(p.name for p in result.paths.private.iterdir()) == sorted(result.staged)
    prov = json.loads((result.paths.root / "manifest.json").read_text())["provenance"]
    assert len(prov["original_case_ids"]) == 6
    assert all(v.startswith(("test_normal_", "test_abnormal_")) for v in prov["original_case_ids"].values())
    assert prov["original_case_ids"] == {v: k for k, v in hashed_case_ids(list(prov["original_case_ids"].values())).items()}
    again = stage_from_folder("my-cls-data", root, task, tmp_path / "data", force=True, rename_cases=True)
    assert sorted(again.staged) == sorted(result.staged)
    monkeypatch.setenv("AUTOMEDBENCH_DATA", str(tmp_path / "data"))
    report = run_one("my-cls", "lite", "reference", tmp_path / "runs",
                     RunOptions(sandbox="bwrap", data_root=tmp_path / "data", tasks_dirs=[my_tasks_dir]))
    assert report.run.end_reason == "submitted" and report.task.score is not None and report.task.score > 0
