"""An episode walked from `reset` to its reward enters no lifecycle internals (issue 42, "Done
when"; docs/rl.md "One loop"): every function of `automedbench.lifecycle` that code of
`automedbench.rl` calls directly is the lifecycle's public API, a name its package exports
(`automedbench.lifecycle.__all__`) or a public method of an exported class, never a `_name`
and never a helper the package does not export. The walk is traced call by call
(sys.setprofile) through real episodes on the bwrap sandbox: stepped by hand to submission,
played by a scripted policy and by a policy asking the loopback OpenAI-compatible server,
closed by the caller, and run as a group on the local executor."""
from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

import automedbench.lifecycle as lifecycle
from automedbench.lifecycle import RunDriver
from automedbench.rl import MedEnv, OpenAIPolicy, play, run_group
from tests.llm.fake_openai import call
from tests.llm.scripted_llm import agent_script

from .conftest import needs_bwrap
from .policies import DATA, ReplayPolicy, looks_and_submits

pytestmark = [needs_bwrap, pytest.mark.slow, pytest.mark.filterwarnings("ignore::RuntimeWarning")]
TASK, TIER = "brain-lesion-seg", "lite"
CALLER, CALLEE = "automedbench.rl", "automedbench.lifecycle"

Entry = tuple[str, str, str]     # (callee module, callee qualname, caller module:qualname)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@contextmanager
def rl_calls_into_lifecycle() -> Iterator[Counter[Entry]]:
    """Count every entry into a function of the lifecycle whose caller's frame is code of the
    RL package (this thread and any thread started meanwhile)."""
    seen: Counter[Entry] = Counter()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee = frame.f_globals.get("__name__", "")
        if not _within(callee, CALLEE):
            return
        back = frame.f_back
        caller = back.f_globals.get("__name__", "")
        if _within(caller, CALLER):
            seen[(callee, frame.f_code.co_qualname, f"{caller}:{back.f_code.co_qualname}")] += 1

    old = sys.getprofile()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(old)
        threading.setprofile(None)   # type: ignore[arg-type]


def is_public(qualname: str) -> bool:
    """A name the lifecycle exports, or a public method (or dunder) of a class it exports."""
    parts = qualname.split(".")
    if parts[0] not in lifecycle.__all__:
        return False
    return all(not p.startswith("_") or (p.startswith("__") and p.endswith("__")) for p in parts[1:])


def internals(seen: Counter[Entry]) -> list[Entry]:
    return sorted(e for e in seen if not is_public(e[1]))


def _entered(seen: Counter[Entry]) -> set[str]:
    return {qualname for _, qualname, _ in seen}


def test_the_check_tells_public_api_from_internals():
    assert is_public("prepare_run") and is_public("RunDriver.step") and is_public("RunDriver.__init__")
    assert is_public("OpenRun.ended")
    assert not is_public("RunDriver._record_end") and not is_public("_begin_records")
    assert not is_public("is_policy") and not is_public("run_rules")      # defined there, not exported
    assert not is_public("faults_recorded")


def test_the_trace_sees_a_call_from_rl_code_into_an_internal():
    """The profile is not blind: code running as a module of the RL package that reaches into
    the lifecycle is counted and named (here the driver's private `_live`)."""
    rl_globals: dict[str, Any] = {"__name__": "automedbench.rl.reach_in", "RunDriver": RunDriver}
    exec("def reach(d):\n    try:\n        d._live()\n    except Exception:\n        pass\n", rl_globals)
    reach: Callable[[Any], None] = rl_globals["reach"]

    class NoRun:
        class info:
            run_id, end_reason = "x", "submitted"
        ended = True
    driver = RunDriver.__new__(RunDriver)
    driver.run, driver.turns = NoRun(), None   # type: ignore[assignment]
    with rl_calls_into_lifecycle() as seen:
        reach(driver)
    assert internals(seen) == [("automedbench.lifecycle.act", "RunDriver._live", "automedbench.rl.reach_in:reach")]


def test_an_episode_from_reset_to_reward_enters_no_lifecycle_internals(options, fake_openai, tmp_path):
    with rl_calls_into_lifecycle() as seen:
        env = MedEnv(TASK, TIER, out_dir=tmp_path / "eps", options=options, model="fake-model")
        # 1. stepped by hand: a text reply (nudged), a call, the submission; the reward
        env.reset(seed=1)
        assert not env.step({"role": "assistant", "content": "Let me look first."}).done
        ls = call("execute_code", {"language": "bash", "code": f"# S1\nls {DATA}"})
        assert not env.step({"role": "assistant", "content": "", "tool_calls": [ls]}).done
        final = env.step({"role": "assistant", "content": "", "tool_calls": [call("submit_results", {})]})
        assert final.done and final.reward is not None and final.info["end_reason"] == "submitted"
        # 2. played by a scripted policy, which the lifecycle asks turn after turn
        played = play(env, ReplayPolicy([looks_and_submits()]), seed=2)
        assert played is not None and played.end_reason == "submitted" and env.final is not None
        # 3. played by a policy asking the loopback OpenAI-compatible server (our LLM agent)
        fake_openai.push(*agent_script(DATA))
        asked = play(env, OpenAIPolicy(fake_openai.url, "fake-model", max_retries=1,
                                       retry={"backoff_base_s": 0.01, "backoff_max_s": 0.02}), seed=3)
        assert asked is not None and asked.end_reason == "submitted" and asked.overall is not None
        # 4. the caller stops after one step: closed, still scored
        env.reset(seed=4)
        env.step({"role": "assistant", "content": "", "tool_calls": [ls]})
        closed = env.close()
        assert closed is not None and closed.info["end_reason"] == "agent_finished" and closed.reward is not None
        # 5. a group of two on the local executor's one worker (this process: rl/groups.py's jobs)
        group = run_group(TASK, TIER, 2, ReplayPolicy([looks_and_submits()]), workers=1, out_dir=tmp_path / "groups",
                          options=options)
        assert len(group.rewards) == 2 and group.rewards[0] == group.rewards[1] == played.overall
    # the walk went through the lifecycle: prepared, opened, stepped, acted, ended, closed, scored
    callers = {caller.split(":")[0] for _, _, caller in seen}
    assert callers == {"automedbench.rl.env"}, callers     # the groups' jobs too, through MedEnv
    # six episodes opened under the trace: four by hand and the group's two (in this process)
    assert seen[("automedbench.lifecycle.session", "open_run", "automedbench.rl.env:MedEnv.reset")] == 6
    assert {"prepare_run", "open_run", "RunDriver.__init__", "RunDriver.step", "RunDriver.end", "act",
            "close_run", "score"} <= _entered(seen), sorted(_entered(seen))
    assert internals(seen) == [], internals(seen)
