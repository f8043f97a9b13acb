"""One agent loop (docs/llm.md "What the loop does", docs/rl.md "One loop"): the same scripted
model, served by the loopback fake server, through `automedbench run` (a subprocess), a sweep
cell and an RL episode ends the same way under the same token budget and scores the same."""
import json
from pathlib import Path

from automedbench.api import run_sweep
from automedbench.rl import MedEnv, OpenAIPolicy, play
from automedbench.runs.models import DetailReport
from automedbench.runs.options import RunOptions
from automedbench.runs.sweep import SweepSpec
from tests.helpers import amb

from .scripted_llm import agent_script

BUDGET = 2500   # the script's first two calls use 1200 + 1600 tokens: the second crosses it


def _agents_yaml(path: Path, url: str) -> Path:
    path.write_text(f"""agents:
  - name: budget-agent
    model: fake-coder
    base_url: {url}
    limits: {{max_total_tokens: {BUDGET}}}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
""")
    return path


def _facts(report: DetailReport) -> dict:
    return {"end_reason": report.run.end_reason, "turns": report.run.turns, "submitted": report.run.submitted,
            "tokens": report.run.tokens_in + report.run.tokens_out, "task": report.task.score,
            "stages": {s: st.score for s, st in report.stages.items()}, "overall": report.overall}


def _limits(run_dir: Path | str) -> dict:
    return json.loads((Path(run_dir) / "run.json").read_text())["limits"]


def test_run_sweep_cell_and_episode_share_the_loop_and_its_token_budget(fake_openai, tiny):
    env, tmp = tiny
    cfg = _agents_yaml(tmp / "agents.yaml", fake_openai.url)
    data_dir = str((tmp / "data" / "tiny-lesion" / "public").resolve())
    # two replies per run: a third model call would get the empty queue's HTTP 500s (a provider end)
    two = agent_script(data_dir)[:2]

    fake_openai.push(*two)
    proc = amb("run", "--task", "tiny-seg", "--tier", "lite", "--agent", "budget-agent", "--agent-config", cfg,
               "--sandbox", "local", "--out", tmp / "runs", env=env)
    run_dir = Path(proc.stdout.strip().splitlines()[-1])
    by_run = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())

    fake_openai.push(*two)
    options = RunOptions(sandbox="local", network=False, agent_configs=[str(cfg)], data_root=env["AUTOMEDBENCH_DATA"],
                         tasks_dirs=[env["AUTOMEDBENCH_TASKS"]])
    (cell,) = run_sweep(SweepSpec(agents=["budget-agent"], tasks=["tiny-seg"], options=options, workers=1),
                        tmp / "sweep")
    by_sweep = DetailReport.model_validate_json((Path(cell.run_dir) / "detail_report.json").read_text())

    fake_openai.push(*two)
    episode = MedEnv("tiny-seg", "lite", out_dir=tmp / "episodes", options=options, model="fake-coder",
                     limits={"max_total_tokens": BUDGET})
    comp = play(episode, OpenAIPolicy(fake_openai.url, "fake-coder", max_retries=1,
                                      retry={"backoff_base_s": 0.01, "backoff_max_s": 0.02}))
    assert comp is not None and episode.final is not None
    ep_dir = Path(episode.final.info["run_dir"])
    by_episode = DetailReport.model_validate_json((ep_dir / "detail_report.json").read_text())

    assert len(fake_openai.chat_requests()) == 6          # two model calls each, none after the budget
    expected = _facts(by_run)
    assert expected["end_reason"] == "max_tokens" and expected["turns"] == 2 and expected["tokens"] == 2800
    assert _facts(by_sweep) == expected
    assert _facts(by_episode) == expected
    assert episode.final.truncated and comp.end_reason == "max_tokens" and episode.final.reward == by_run.overall
    for where in (run_dir, cell.run_dir, ep_dir):
        assert _limits(where)["max_total_tokens"] == BUDGET
    assert _limits(ep_dir)["max_turns"] == _limits(run_dir)["max_turns"]
