"""A researcher's first hour, walked as a newcomer would (issue 21; docs/your-task.md,
docs/llm.md, docs/sweeps.md): their model behind an OpenAI-compatible server (the loopback
fake, scripted), an agent entry, `agents check`, their own data staged from plain folders,
a 2-agent x 2-task x 2-repeat sweep in the bwrap sandbox, an edited agent YAML refused, the
site and the export. Every step goes through the CLI, a process of its own; each message a newcomer
should see is asserted."""
from __future__ import annotations

import json
import os
import re
import socket
import sys
import time

import pytest
from tests.llm.fake_openai import FakeOpenAI, call, completion
from tests.cli_forkserver import run_cli


SEG_CODE = """# S4 batch: threshold every volume
import os, numpy as np, nibabel as nib
D = {data!r}
for c in sorted(os.listdir(D)):
    img = nib.load(f"{{D}}/{{c}}/image.nii.gz"); a = np.asarray(img.dataobj, dtype=float)
    os.makedirs(f"outputs/{{c}}", exist_ok=True)
    nib.save(nib.Nifti1Image((a > 20).astype("uint8"), img.affine), f"outputs/{{c}}/organ.nii.gz")
    nib.save(nib.Nifti1Image((a > {lesion}).astype("uint8"), img.affine), f"outputs/{{c}}/lesion.nii.gz")
print("wrote", len(os.listdir("outputs")), "cases")
"""
CLS_CODE = """# S4 batch: one threshold on the mean intensity
import os, numpy as np
from PIL import Image
D = {data!r}
rows = ["patient_id,label"]
for c in sorted(os.listdir(D)):
    v = np.asarray(Image.open(f"{{D}}/{{c}}/image.png")).mean()
    rows.append(f"{{c}},{{'abnormal' if v > {cut} else 'normal'}}")
os.makedirs("outputs", exist_ok=True)
open("outputs/predictions.csv", "w").write("\\n".join(rows) + "\\n")
print(rows)
"""


def scripted_model(request: dict) -> dict:
    """The researcher's model, scripted: one execute_code call that writes every output (model-a
    well, model-b carelessly), then submit_results. Stateless, so parallel runs work."""
    body = request["body"] or {}
    messages = body.get("messages") or []
    if any(m.get("role") == "tool" for m in messages):
        return completion(tool_calls=[call("submit_results", {})], model=body.get("model"))
    system = messages[0].get("content") or ""
    data = re.search(r"Input data \(read-only\): `([^`]+)`", system).group(1)
    good = body.get("model") == "model-a"
    code = (CLS_CODE.format(data=data, cut=128 if good else 250) if "predictions.csv" in system
            else SEG_CODE.format(data=data, lesion=60 if good else 10))
    return completion(tool_calls=[call("execute_code", {"language": "python", "code": code})], model=body.get("model"))


def amb(*args, cwd, env):
    proc = run_cli(args, cwd=cwd, env={**os.environ, **env}, timeout=600)
    if os.environ.get("FIRST_HOUR_SHOW"):   # print what a newcomer sees at each step (the closing note)
        sys.__stdout__.write(f"\n$ automedbench {' '.join(map(str, args))}\n{proc.stdout}{proc.stderr}"
                             f"[exit {proc.returncode}]\n")
    return proc


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def model_server():
    srv = FakeOpenAI().start()
    srv.models = ["model-a", "model-b"]
    srv.default = scripted_model
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.slow
def test_first_hour(tmp_path, model_server, my_tasks_dir, seg_folder, cls_folder, capsys):
    t0 = time.monotonic()
    home = tmp_path
    env = {"AUTOMEDBENCH_DATA": str(home / "data"), "COLUMNS": "200"}
    agents = home / "agents.yaml"
    entry = ("  - name: {name}\n    model: {model}\n    base_url: {url}\n    temperature: 0.2\n"
             "    limits: {{max_turns: 6}}\n    timeout_s: 20\n"
             "    retry: {{max_retries: 1, backoff_base_s: 0.05, backoff_max_s: 0.1}}\n")
    agents.write_text("agents:\n" + entry.format(name="agent-a", model="model-a", url=model_server.url)
                      + entry.format(name="agent-b", model="model-b", url=model_server.url))

    # 1. agents check: reachable, the model that answered, tool calling, latency
    ok = amb("agents", "check", "agent-a", "agent-b", "--agent-config", agents, cwd=home, env=env)
    assert ok.returncode == 0, ok.stderr
    assert re.search(r"ok agent-a: http://127\.0\.0\.1:\d+/v1 reachable, model 'model-a' answered in [\d.]+ s; "
                     r"tool calling: yes", ok.stdout), ok.stdout
    # ... and the three classic mistakes, each with its hint, exit 2
    typo = home / "typo.yaml"
    refused_url = f"http://127.0.0.1:{closed_port()}/v1"
    typo.write_text("agents:\n" + entry.format(name="no-v1", model="model-a", url=model_server.url[:-3])
                    + entry.format(name="wrong-model", model="model-c", url=model_server.url)
                    + entry.format(name="not-running", model="model-a", url=refused_url))
    bad = amb("agents", "check", "no-v1", "wrong-model", "not-running", "--agent-config", typo, cwd=home, env=env)
    assert bad.returncode == 2
    for name, hint in (("no-v1", "does base_url end in /v1 (it does not)?"),
                       ("wrong-model", "the server does not serve model 'model-c'; the server serves: model-a, model-b"),
                       ("not-running", f"connection refused: is the server running and listening at {refused_url}?")):
        line = next(line for line in bad.stderr.splitlines() if f"agent '{name}'" in line)
        assert line.startswith("configuration error:") and hint in line, (name, bad.stderr)

    # 2. their own data, staged with the documented command
    for ds, folder, task, summary in (("my-seg-data", seg_folder, "my-seg", "4 cases staged, 1 skipped: no segmentation"),
                                      ("my-cls-data", cls_folder, "my-cls", "4 cases staged, 1 skipped: no label")):
        st = amb("data", "stage", ds, "--from-folder", folder, "--task", task, "--tasks-dir", my_tasks_dir,
                 cwd=home, env=env)
        assert st.returncode == 0 and summary in st.stderr, st.stderr

    # 3. the sweep: 2 agents x 2 tasks x 2 repeats, bwrap, network off
    sweep = home / "sweep.yaml"
    sweep.write_text(f"agents: [agent-a, agent-b]\ntasks: [my-seg, my-cls]\ntiers: [lite]\nrepeats: 2\n"
                     f"options:\n  sandbox: bwrap\n  network: false\n  tasks_dirs: [{my_tasks_dir}]\n"
                     f"  agent_configs: [{agents}]\nworkers: 2\nout: runs\n")
    sw = amb("sweep", sweep, cwd=home, env=env)
    assert sw.returncode == 0, sw.stdout + sw.stderr
    assert "Leaderboard:" in sw.stdout and "failed" not in sw.stderr
    cells = sorted((home / "runs").glob("my-*/lite/agent-*/rep*/detail_report.json"))
    assert len(cells) == 8
    meta = json.loads((cells[0].parent / "run.json").read_text())
    assert meta["limits"]["max_turns"] == 6 and meta["agent_config"]["temperature"] == 0.2
    assert "api_key" not in json.dumps(meta["agent_config"]).replace("api_key_env", "")
    reports = [json.loads(p.read_text()) for p in cells]
    assert {r["run"]["end_reason"] for r in reports} == {"submitted"}
    by_agent = {a: [r["task"]["score"] for r in reports if r["run"]["agent"] == a] for a in ("agent-a", "agent-b")}
    assert min(by_agent["agent-a"]) > max(by_agent["agent-b"])   # the better model scores better

    # 4. the agent YAML edited (temperature): the same sweep root refuses it, naming what changed
    agents.write_text(agents.read_text().replace("temperature: 0.2", "temperature: 0.9", 1))
    again = amb("sweep", sweep, cwd=home, env=env)
    assert again.returncode == 2
    assert "agents.agent-a.temperature: 0.2 -> 0.9" in again.stderr and "--force" in again.stderr

    # 5. the site and the export
    index = home / "runs" / "leaderboard" / "index.html"
    assert index.is_file() and "agent-a" in index.read_text()
    board = json.loads((home / "runs" / "leaderboard" / "leaderboard.json").read_text())
    assert {a["agent"] for a in board["agents"]} == {"agent-a", "agent-b"} and not board.get("config_notes")
    exported = amb("export", home / "runs", "--out", home / "inspect", cwd=home, env=env)
    assert exported.returncode == 0, exported.stderr
    logs = sorted((home / "inspect").glob("*.json"))
    assert len(logs) == 8 and len(exported.stdout.split()) == 8   # every run of the sweep root, one log each
    assert all(json.loads(p.read_text())["samples"] for p in logs)

    # 6. a sweep against a server that is not running stops before its first cell, exit 2
    agents.write_text(agents.read_text().replace(model_server.url, refused_url))
    down = amb("sweep", sweep, "--out", home / "runs-down", cwd=home, env=env)
    assert down.returncode == 2 and "connection refused: is the server running" in down.stderr
    assert not list((home / "runs-down").glob("my-*")) and not (home / "runs-down" / "sweep.lock.json").exists()
    with capsys.disabled():
        print(f"\nfirst-hour walk: {time.monotonic() - t0:.1f} s wall")
