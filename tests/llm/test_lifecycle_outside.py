"""The run lifecycle driven from outside (docs/architecture.md "The run lifecycle"): a caller hands
one assistant message at a time and gets the tool results back. The same trajectory driven from
inside (our LLM agent asking the loopback fake server) leaves a run folder of the same shape:
the same files, the same record schema, the same trace and conversation, the same scores."""
import json
from pathlib import Path

import pytest

from automedbench import api
from automedbench.lifecycle import (
    RunDriver,
    RunEndedError,
    Usage,
    close_run,
    open_run,
    prepare_run,
    score,
)
from tests.helpers import tiny_lesion_dataset

from .fake_openai import call
from .scripted_llm import agent_script, write_agents_yaml

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
TASK, TIER, AGENT = "brain-lesion-seg", "lite", "fake-agent"


@pytest.fixture
def setup(tmp_path):
    data_root = tmp_path / "data"
    tiny_lesion_dataset(data_root / "mni-brain-lesion", n_cases=3)
    cfg = write_agents_yaml(tmp_path / "agents.yaml", "http://127.0.0.1:9/v1")
    options = api.RunOptions(sandbox="local", data_root=data_root, agent_configs=[cfg], exec_timeout_s=60)
    data_dir = str((data_root / "mni-brain-lesion" / "public").resolve())
    return options, data_dir, cfg


def _drive_outside(options, run_dir: Path, replies: list[dict]):
    """The replies' assistant messages, handed over one at a time with their usage."""
    prep = prepare_run(TASK, TIER, AGENT, options)
    run = open_run(prep, TIER, AGENT, run_dir, options)
    driver = RunDriver(run)
    assert [m["role"] for m in driver.messages] == ["system", "user"]
    assert "execute_code" in json.dumps(driver.tools)
    steps = []
    for reply in replies:
        body = reply["json"]
        u = body["usage"]
        usage = Usage(tokens_in=u["prompt_tokens"], tokens_out=u["completion_tokens"],
                      tokens_cached=u["prompt_tokens_details"]["cached_tokens"],
                      cost_usd=prep.agent.config.pricing.cost(u["prompt_tokens"], u["completion_tokens"],  # type: ignore[attr-defined]
                                                               u["prompt_tokens_details"]["cached_tokens"]),
                      finish_reason=body["choices"][0]["finish_reason"])
        steps.append(driver.step(body["choices"][0]["message"], usage))
        if steps[-1].done:
            break
    close_run(run)
    return run, driver, steps, score(run)


def _shape(obj):
    """Keys and value types, recursively: what a schema sees, not the values."""
    if isinstance(obj, dict):
        return {k: _shape(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_shape(obj[0])] if obj else []
    return type(obj).__name__


def _files(run_dir: Path) -> list[str]:
    return sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*") if p.is_file())


def _trace(run_dir: Path) -> list[tuple]:
    events = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    return [(e["type"], e.get("kind"), e.get("stage"), e.get("turn"), e.get("call_index")) for e in events]


def test_outside_driven_run_leaves_the_same_run_folder_as_inside(fake_openai, setup, tmp_path):
    options, data_dir, cfg = setup
    write_agents_yaml(cfg, fake_openai.url)
    replies = agent_script(data_dir)
    fake_openai.push(*replies)
    inside = api.run_one(TASK, TIER, AGENT, options=options, run_dir=tmp_path / "inside")
    assert inside.run.end_reason == "submitted"

    run, driver, steps, outside = _drive_outside(options, tmp_path / "outside", replies)
    assert len(steps) == 5 and steps[-1].end_reason == "submitted" and not any(s.done for s in steps[:-1])
    # each step answered its calls with tool messages, as the model would see them
    assert all(m["role"] == "tool" for s in steps for m in s.tool_messages)
    assert "exit_code: 0" in steps[2].tool_messages[0]["content"]
    assert driver.messages[-1]["role"] == "tool" and len(driver.messages) == 2 + 5 * 2

    a, b = tmp_path / "inside", tmp_path / "outside"
    assert _files(a) == _files(b)
    for name in ("run.json", "detail_report.json", "conversation.json"):
        assert _shape(json.loads((a / name).read_text())) == _shape(json.loads((b / name).read_text())), name
    assert _trace(a) == _trace(b)
    conv_a, conv_b = (json.loads((d / "conversation.json").read_text()) for d in (a, b))
    assert [(m["role"], len(m.get("tool_calls") or [])) for m in conv_a["messages"]] == \
        [(m["role"], len(m.get("tool_calls") or [])) for m in conv_b["messages"]]
    assert outside.run.model_dump(exclude={"run_id", "started_at", "wall_time_s", "setup_time_s"}) == \
        inside.run.model_dump(exclude={"run_id", "started_at", "wall_time_s", "setup_time_s"})
    assert outside.task.score == inside.task.score and outside.task.score is not None
    assert {s: st.score for s, st in outside.stages.items()} == {s: st.score for s, st in inside.stages.items()}
    assert outside.overall == inside.overall
    with pytest.raises(RunEndedError):
        driver.step({"role": "assistant", "content": "more?"})


def test_outside_driver_keeps_the_task_limits_and_text_replies(setup, tmp_path):
    """A text-only reply runs nothing and is nudged, as our loop nudges its model; the task's
    turn limit ends the run after the turn that reaches it, from outside as from inside; a run
    the caller stops is recorded agent_finished."""
    options, _, _ = setup
    prep = prepare_run(TASK, TIER, AGENT, options)
    run = open_run(prep, TIER, AGENT, tmp_path / "limits", options)
    run.box.max_turns = 2   # the ToolBox's limit, which the task sets (docs/llm.md)
    driver = RunDriver(run)
    first = driver.step({"role": "assistant", "content": "Let me think about the plan first."})
    (nudge,) = first.tool_messages
    assert nudge["role"] == "user" and "without calling a tool" in nudge["content"] and not first.done
    second = driver.step({"role": "assistant", "content": "",
                          "tool_calls": [call("execute_code", {"language": "bash", "code": "# S1\necho hi"})]})
    assert "hi" in second.tool_messages[0]["content"]
    assert second.done and second.end_reason == "max_turns"     # no third model call is asked for
    with pytest.raises(RunEndedError):
        driver.step({"role": "assistant", "content": "", "tool_calls": [call("submit_results", {})]})
    close_run(run)
    rec = json.loads((tmp_path / "limits" / "run.json").read_text())["run"]
    assert rec["end_reason"] == "max_turns" and rec["turns"] == 2 and not rec["submitted"]
    kinds = [k for t, k, *_ in _trace(tmp_path / "limits") if t == "warning"]
    assert "text_reply" in kinds and "nudge" in kinds and "limit" in kinds

    run2 = open_run(prep, TIER, AGENT, tmp_path / "stopped", options)
    d2 = RunDriver(run2)
    d2.finish()
    close_run(run2)
    report = score(run2)
    assert report.run.end_reason == "agent_finished" and report.run.turns == 0
    assert report.task.completion_rate == 0.0
