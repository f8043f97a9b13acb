"""Your data as it already lies on disk, with a baseline beside your agent (issue 28;
docs/your-task.md sections 2 and 5, docs/leaderboard.md "Rows that are never mixed").

Four folders in the layouts public data is shared in (MSD with channel suffixes, ImageFolder,
COCO, a VQA question table) are staged with one command each; the scripted `reference` agent
and the researcher's model (the loopback OpenAI-compatible fake, scripted) run on a task over
each in the bwrap sandbox; the board is built; a task edited afterwards is a second version,
and the board shows it as a second row and says why. Every step goes through the CLI."""
from __future__ import annotations

import json
import os
import re

import pytest
from tests.llm.fake_openai import FakeOpenAI, call, completion
from tests.cli_forkserver import run_cli


# the researcher's model: one execute_code call writing every case's output, then submit
CODE = {
    "labels.nii.gz": """import os, numpy as np, nibabel as nib
D = {data!r}
for c in sorted(os.listdir(D)):
    img = nib.load(f"{{D}}/{{c}}/image.nii.gz"); a = np.asarray(img.dataobj, dtype=float)
    os.makedirs(f"outputs/{{c}}", exist_ok=True)
    nib.save(nib.Nifti1Image(((a > 50).astype("uint8") + (a > 110)).astype("uint8"), img.affine), f"outputs/{{c}}/labels.nii.gz")
""",
    "predictions.csv": """import os, numpy as np
from PIL import Image
D = {data!r}
rows = ["patient_id,label"] + [f"{{c}},{{'abnormal' if np.asarray(Image.open(f'{{D}}/{{c}}/image.png')).mean() > 120 else 'normal'}}"
                               for c in sorted(os.listdir(D)) if not c.startswith("_")]
os.makedirs("outputs", exist_ok=True)
open("outputs/predictions.csv", "w").write("\\n".join(rows) + "\\n")
""",
    "prediction.json": """import os, json, numpy as np
from PIL import Image
from scipy import ndimage
D = {data!r}
for c in sorted(os.listdir(D)):
    lab, n = ndimage.label(np.asarray(Image.open(f"{{D}}/{{c}}/image.png")) > 128)
    boxes = [{{"class": "spot", "score": 0.9, "x1": s[1].start, "y1": s[0].start, "x2": s[1].stop, "y2": s[0].stop}}
             for s in ndimage.find_objects(lab)]
    os.makedirs(f"outputs/{{c}}", exist_ok=True)
    json.dump({{"boxes": boxes}}, open(f"outputs/{{c}}/prediction.json", "w"))
""",
    "answer.json": """import os, json
D = {data!r}
for c in sorted(os.listdir(D)):
    q = json.load(open(f"{{D}}/{{c}}/question.json"))
    label = "A" if q.get("options") else None
    os.makedirs(f"outputs/{{c}}", exist_ok=True)
    json.dump({{"question_id": c, "predicted_answer": "yes", "predicted_label": label,
               "raw_model_output": "yes", "model_name": "my-model"}}, open(f"outputs/{{c}}/answer.json", "w"))
""",
}


def scripted_model(request: dict) -> dict:
    body = request["body"] or {}
    messages = body.get("messages") or []
    if any(m.get("role") == "tool" for m in messages):
        return completion(tool_calls=[call("submit_results", {})], model=body.get("model"))
    system = messages[0].get("content") or ""
    data = re.search(r"Input data \(read-only\): `([^`]+)`", system).group(1)
    code = next(code for out, code in CODE.items() if out in system)
    return completion(tool_calls=[call("execute_code", {"language": "python", "code": code.format(data=data)})],
                      model=body.get("model"))


def amb(*args, cwd, env):
    return run_cli(args, cwd=cwd, env={**os.environ, **env}, timeout=600)


@pytest.fixture
def model_server():
    srv = FakeOpenAI().start()
    srv.models = ["my-model"]
    srv.default = scripted_model
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.slow
def test_four_layouts_staged_as_they_lie_run_with_a_baseline_and_boarded(
        tmp_path, model_server, my_tasks_dir, msd_folder, imagefolder, coco_folder, vqa_folder):
    home = tmp_path
    env = {"AUTOMEDBENCH_DATA": str(home / "data"), "COLUMNS": "200"}
    cls_yaml = my_tasks_dir / "my-cls" / "task.yaml"   # the few-shot baseline needs labelled examples
    cls_yaml.write_text(cls_yaml.read_text().replace("  labels: [normal, abnormal]\n",
                                                     "  labels: [normal, abnormal]\n  examples_per_class: 1\n"))

    # 1. one command per folder, the layout detected and named, the disk use said
    for ds, folder, task, layout, summary in (
            ("my-msd-data", msd_folder, "my-msd", "msd", "3 cases staged, 1 skipped: no segmentation (hu_04)"),
            ("my-cls-data", imagefolder, "my-cls", "imagefolder", "6 cases staged"),
            ("my-det-data", coco_folder, "my-det", "coco", "3 cases staged"),
            ("my-vqa-data", vqa_folder, "my-vqa", "table", "3 cases staged, 1 skipped: no answer (v4)")):
        st = amb("data", "stage", ds, "--from-folder", folder, "--task", task, "--tasks-dir", my_tasks_dir,
                 *(["--link"] if layout == "coco" else []), cwd=home, env=env)
        assert st.returncode == 0, st.stderr
        assert f"{ds}: {summary}" in st.stderr and f"layout {layout!r}: " in st.stderr, st.stderr
    assert "imagesTs/: 2 test case(s) not staged" in amb(
        "data", "stage", "my-msd-data", "--from-folder", msd_folder, "--task", "my-msd", "--tasks-dir",
        my_tasks_dir, "--force", cwd=home, env=env).stderr

    # 2. the baseline and the researcher's model on every task, bwrap, network off
    agents = home / "agents.yaml"
    agents.write_text(f"agents:\n  - name: my-model\n    model: my-model\n    base_url: {model_server.url}\n"
                      "    limits: {max_turns: 6}\n    timeout_s: 20\n")
    sweep = home / "sweep.yaml"
    sweep.write_text(f"agents: [reference, my-model]\ntasks: [my-msd, my-cls, my-det, my-vqa]\ntiers: [lite]\n"
                     f"repeats: 1\noptions:\n  sandbox: bwrap\n  network: false\n  tasks_dirs: [{my_tasks_dir}]\n"
                     f"  agent_configs: [{agents}]\nworkers: 2\nout: runs\n")
    sw = amb("sweep", sweep, cwd=home, env=env)
    assert sw.returncode == 0, sw.stdout + sw.stderr
    reports = {(r["run"]["task"], r["run"]["agent"]): r for r in
               (json.loads(p.read_text()) for p in (home / "runs").glob("my-*/lite/*/rep*/detail_report.json"))}
    assert len(reports) == 8
    scores = {k: (r["task"]["score"], r["task"]["completion_rate"]) for k, r in reports.items()}
    for (task, agent), r in reports.items():
        assert r["run"]["end_reason"] == "submitted", (task, agent, r["run"])
        assert r["task"]["completion_rate"] == 1.0 and r["task"]["score"] is not None, (task, agent, r["task"])
    # the classical baselines do their job on these synthetic sets
    assert reports[("my-cls", "reference")]["task"]["score"] > 0.5, scores
    assert reports[("my-msd", "reference")]["task"]["score"] > 0.5, scores
    assert reports[("my-det", "reference")]["task"]["score"] > 0.5
    meta = json.loads(next((home / "runs").glob("my-vqa/lite/reference/rep*/run.json")).read_text())
    assert meta["judges"] == ["heuristic"]   # the judge that scored it, not null (docs/judge.md)
    board = json.loads((home / "runs" / "leaderboard" / "leaderboard.json").read_text())
    assert {a["agent"] for a in board["agents"]} == {"reference", "my-model"} and not board["config_notes"]

    # 3. the task edited (a second version): its runs never share a row with the first's
    vqa_yaml = my_tasks_dir / "my-vqa" / "task.yaml"
    vqa_yaml.write_text(vqa_yaml.read_text().replace("in a few words.", "in one word."))
    again = amb("run", "--task", "my-vqa", "--agent", "reference", "--tasks-dir", my_tasks_dir,
                "--sandbox", "bwrap", "--network", "off", "--out", home / "runs-v2", cwd=home, env=env)
    assert again.returncode == 0, again.stderr
    rep = amb("report", home / "runs", home / "runs-v2", "--out", home / "board", cwd=home, env=env)
    assert rep.returncode == 0, rep.stderr
    both = json.loads((home / "board" / "leaderboard.json").read_text())
    vqa_rows = [g for g in both["groups"] if g["task"].startswith("my-vqa") and g["agent"] == "reference"]
    assert len(vqa_rows) == 2 and all(re.fullmatch(r"my-vqa \[[0-9a-f]{8}\]", g["task"]) for g in vqa_rows)
    [note] = both["config_notes"]
    assert note.startswith("task 'my-vqa' was run in 2 versions") and "fields that differ: description" in note
    assert "fields that differ: description" in (home / "board" / "index.html").read_text()
