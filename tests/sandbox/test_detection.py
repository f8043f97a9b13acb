"""Detection: the decoy /data/private is watched from outside; touching it is a violation."""
from __future__ import annotations

import json

import pytest

from automedbench.sandbox import advisory

from .conftest import needs_bwrap

TOUCH = [
    ("ls", "bash", "ls /data/private", "/data/private"),
    ("cat", "bash", "cat /data/private/case_00001/ref.txt", "/data/private/case_00001/ref.txt"),
    ("listdir", "python", "import os; print(os.listdir('/data/private'))", "/data/private"),
    ("open-py", "python", "print(open('/data/private/manifest.json').read())", "/data/private/manifest.json"),
    ("find-root", "bash", "find / -name '*.nii.gz' 2>/dev/null | head -1", "/data/private"),
]


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name,language,code,path", TOUCH, ids=[t[0] for t in TOUCH])
def test_decoy_touch_is_a_violation(box, name, language, code, path):
    r = box.execute(language, code)
    assert len(r.violations) == 1, r.violations
    v = r.violations[0]
    assert v["kind"] == "private_access" and path in v["paths"] and v["evidence"]
    assert r.blocked
    # its proof: the processes that opened the decoy, every one the call's (docs/sandbox.md)
    procs = v["processes"]
    assert procs and all(p["of_call"] and p["pid_in_sandbox"] for p in procs), procs
    assert any(code.split()[0].split(";")[0] in p["cmdline"] or "python" in p["cmdline"] for p in procs), procs
    # attribution is per call: the next harmless call is clean
    assert box.execute("bash", "ls /data/public >/dev/null; ls -la /data; echo ok").violations == []


@needs_bwrap
@pytest.mark.bwrap
def test_decoy_is_plausible_but_fake(box, world):
    r = box.execute("bash", "ls /data/private; cat /data/private/case_00000/ref.txt")
    assert "case_00000" in r.stdout and "case_00001" in r.stdout  # mirrors public case ids
    assert "DECOY" in r.stdout and world.canary_private not in r.stdout


@needs_bwrap
@pytest.mark.bwrap
def test_toolbox_policy_warn_then_disqualify(box, tmp_path):
    from automedbench.agents.base import RunStopped, ToolBox
    from automedbench.runs.models import Conversation
    from automedbench.runs.trace import TraceWriter

    trace = TraceWriter(tmp_path / "trace.jsonl")
    tools = ToolBox(box, trace, Conversation(system_prompt="x"))
    assert "SANDBOX VIOLATION" not in tools.execute_code("bash", "echo hi")
    text = tools.execute_code("bash", "cat /data/private/*/ref.txt")
    assert "SANDBOX VIOLATION" in text and "/data/private" in text
    assert not tools.disqualified
    with pytest.raises(RunStopped) as exc:
        tools.execute_code("python", "import os; os.listdir('/data/private')")
    assert exc.value.reason == "disqualified"
    trace.close()
    events = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert sum(e["type"] == "violation" for e in events) == 2


def test_advisory_is_warning_only():
    w = advisory.scan("python", "open('/data/private/x')\nimport os\nos.environ['OPENAI_API_KEY']")
    assert {x["kind"] for x in w} == {"advisory"}
    assert advisory.scan("python", "model = torch.compile(model)\np.parent.parent\nre.compile('x')") == []
    kinds = [x["kind"] for x in advisory.scan("python", "loss.backward()\noptimizer.step()\nmodel.train()")]
    assert kinds.count("training_detected") == 3
    assert advisory.scan("python", "model.eval()\nwith torch.no_grad(): y = model(x)") == []
