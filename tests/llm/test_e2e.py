"""End to end: `run_one` with an LLM agent and an LLM judge from a registry file, both
served by the loopback fake server; then `judge` re-judges from the cache (zero calls)."""
import json

import pytest

from automedbench import api
from tests.helpers import tiny_lesion_dataset

from .fake_openai import completion
from .scripted_llm import VERDICT, agent_script, cite

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SECRET = "sk-e2e-DO-NOT-LEAK-9f8e7d6c5b4a"

@pytest.mark.parametrize("backend", [
    "local",
    pytest.param("bwrap", marks=pytest.mark.skipif(__import__("shutil").which("bwrap") is None,
                                                   reason="bubblewrap not installed")),
])
def test_run_one_llm_agent_and_llm_judge(fake_openai, tmp_path, monkeypatch, backend):
    monkeypatch.setenv("AMB_E2E_KEY", SECRET)
    data_root = tmp_path / "data"
    tiny_lesion_dataset(data_root / "mni-brain-lesion", n_cases=3)
    cfg = tmp_path / "agents.yaml"
    cfg.write_text(f"""agents:
  - name: fake-agent
    model: fake-coder
    base_url: {fake_openai.url}
    api_key_env: AMB_E2E_KEY
    pricing: {{input_per_mtok: 2.0, output_per_mtok: 8.0, cached_input_per_mtok: 0.5}}
    timeout_s: 10
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
    limits: {{max_turns: 20}}
  - name: fake-judge
    model: fake-judge-model
    base_url: {fake_openai.url}
    timeout_s: 10
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
  - name: fake-judge-2
    model: second-judge-model
    base_url: {fake_openai.url}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
""")
    # the agent only knows the paths its prompt gives: inside bwrap the data is at /data/public
    data_dir = "/data/public" if backend == "bwrap" else str((data_root / "mni-brain-lesion" / "public").resolve())
    fake_openai.push(*agent_script(data_dir), completion(json.dumps(VERDICT)))
    run_dir = api.run_one("brain-lesion-seg", "lite", "fake-agent", tmp_path / "runs", api.RunOptions(sandbox=backend,
                          data_root=data_root, agent_configs=[cfg], judges=["fake-judge"], exec_timeout_s=60)).run_dir
    report = json.loads((run_dir / "detail_report.json").read_text())
    run = report["run"]
    assert run["end_reason"] == "submitted" and run["submitted"] and run["model"] == "fake-coder"
    assert run["sandbox"] == ("bwrap" if backend == "bwrap" else "local (no isolation)")
    assert run["turns"] == 5 and run["tokens_in"] == 10000 and run["tokens_out"] == 920
    # cost: uncached (1000+500+500+500+500)*2 + cached 7000*0.5 + out 920*8 = 6000+3500+7360 µUSD
    assert run["cost_usd"] == pytest.approx(0.01686, abs=1e-6)
    assert report["judge"]["backend"] == "llm" and report["judge"]["model"] == "fake-judge-model"
    assert not report["judge"]["judge_incomplete"]
    st = report["stages"]
    assert st["s1"]["items"] == {"s1a": 1, "s1b": 1, "s1c": 1}   # Lite: s1d-s1f not applicable, left out
    # the judge said s2a = 1, but no weights or method file was loaded to produce outputs (the
    # agent's code is inline): the facts bound it to 0 and the rationale says so (bounds.py)
    assert st["s2"]["items"]["s2a"] == 0 and "bounded by facts: s2a 1 -> 0" in st["s2"]["rationale"]
    assert st["s2"]["score"] == pytest.approx(0.4) and st["s3"]["score"] == 0.5
    assert report["task"]["completion_rate"] == 1.0
    reqs = fake_openai.chat_requests()
    assert [r["body"]["model"] for r in reqs] == ["fake-coder"] * 5 + ["fake-judge-model"]
    judge_prompt = reqs[-1]["body"]["messages"][1]["content"]
    assert "threshold the brain" in judge_prompt and "[S3]" in judge_prompt and "[S4]" in judge_prompt
    # the key: used on the wire, absent from everything the run saved and from the sandbox
    assert reqs[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    env_out = [json.loads(l) for l in (run_dir / "trace.jsonl").read_text().splitlines()
               if '"execution"' in l][1]["stdout"]
    assert "PATH=" in env_out and "AMB_E2E_KEY" not in env_out
    for f in run_dir.rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f

    # re-judge: served from the cache, zero HTTP calls
    n = len(fake_openai.chat_requests())
    again = api.judge([run_dir], ["fake-judge"], [cfg])[0]
    assert len(fake_openai.chat_requests()) == n
    assert again.stages["s3"].score == 0.5

    # a panel of two: the first is cached, the second asked; agreement lands in the report
    # (the judges disagree on items the facts leave open: s2c and s3 below the ceiling of 0.5)
    second = {**VERDICT, "s3": {"items": {"s3": 0}, "rationale": "no validation"},
              "s2": {"items": {"s2a": 1, "s2b": 0, "s2c": 0, "s2d": 1, "s2e": 0}, "rationale": "r"}}
    fake_openai.push(completion(json.dumps(cite(second))))
    panel = api.judge([run_dir], ["fake-judge", "fake-judge-2"], [cfg])[0]
    assert len(fake_openai.chat_requests()) == n + 1
    assert panel.judge.backend == "panel" and panel.stages["s3"].score == 0.0     # tie -> lower
    ag = panel.judge.agreement
    assert ag["judges"] == ["fake-judge", "fake-judge-2"]
    assert ag["stages"]["s2"]["percent_agreement"] == pytest.approx(0.8)
    # s2 after the facts' bound (s2a -> 0 for both): A=[0,0,1,1,0] B=[0,0,0,1,0]: p_o=.8,
    # p_e=.4*.2+.6*.8=.56 -> kappa=(.8-.56)/.44
    assert ag["stages"]["s2"]["cohen_kappa"] == pytest.approx(0.24 / 0.44, abs=1e-4)
    assert ag["excluded_not_applicable"] == ["s1d", "s1e", "s1f"]
    saved = json.loads((run_dir / "detail_report.json").read_text())
    assert saved["judge"]["agreement"]["stages"]["s3"]["percent_agreement"] == 0.0


def test_run_one_provider_down_is_infrastructure(fake_openai, tmp_path):
    data_root = tmp_path / "data"
    tiny_lesion_dataset(data_root / "mni-brain-lesion", n_cases=2)
    cfg = tmp_path / "agents.yaml"
    cfg.write_text(f"""agents:
  - name: down
    model: m
    base_url: {fake_openai.url}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
""")
    run_dir = api.run_one("brain-lesion-seg", "lite", "down", tmp_path / "runs", api.RunOptions(sandbox="local",
                          data_root=data_root, agent_configs=[cfg])).run_dir
    report = json.loads((run_dir / "detail_report.json").read_text())
    # docs/faults.md: an outage after retries is infra_error (the cause kept as detail), nobody's score
    assert report["run"]["end_reason"] == "infra_error" and report["run"]["end_detail"] == "provider_unavailable"
    trace = [json.loads(l) for l in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert any(e["type"] == "error" and e.get("kind") == "infrastructure" for e in trace)
    infra = [e for e in report["errors"] if e["code"] == "INFRA_PROVIDER"]
    assert infra and infra[0]["infrastructure"] is True and infra[0]["evidence"]["detail"] == "provider_unavailable"
    assert all(e["infrastructure"] for e in report["errors"])          # no NOT_SUBMITTED, PLAN_MISSING...
    assert all(st["score"] is None for st in report["stages"].values())
    assert report["agentic"] is None and report["task"]["score"] is None and report["overall"] is None
    assert report["rating"] is None and "infra_error" in report["flags"]
