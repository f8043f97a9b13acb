"""A model's conversation as the run page shows it (docs/site.md "Run page", Transcript): an
LLM agent against the loopback scripted server, with text replies and token usage, then the
site built from its trace and conversation and read in Chromium: each model message in order,
with the tokens of its turn."""
from __future__ import annotations

import pytest
from tests.report.browser import needs_browser, new_page
from tests.report.factories import build_report, write_run

from automedbench.agents.llm import LLMAgent
from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug

from .fake_openai import call, completion, usage
from .scripted_llm import agent_config

pytestmark = [*needs_browser, pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def ex(lang, code):
    return call("execute_code", {"language": lang, "code": code})


def test_each_model_message_and_its_tokens_per_turn(fake_openai, rig, tmp_path, browser):
    r = rig()
    fake_openai.push(
        completion("FIRST-MESSAGE: I will look at the data.", [ex("bash", "# S1\nls")], usage_=usage(1200, 340)),
        completion("SECOND-MESSAGE: thinking aloud, no tool call.", usage_=usage(1500, 45)),
        completion("THIRD-MESSAGE: now writing the output.", [ex("python", "# S4\nopen('out.txt','w').write('x')")],
                   usage_=usage(2100, 410)),
        completion("FOURTH-MESSAGE: submitting.", [call("submit_results", {})], usage_=usage(2600, 12)),
    )
    LLMAgent(agent_config(fake_openai.url)).run("You are a test agent.", r.context, r.tools)
    rep = build_report("llm-run", agent="llm-agent")
    run_dir = write_run(tmp_path / "runs", rep)
    (run_dir / "trace.jsonl").write_bytes(r.trace_path.read_bytes())
    (run_dir / "conversation.json").write_text(r.conversation.model_dump_json(), encoding="utf-8")
    write_leaderboard(collect_reports([tmp_path / "runs"]), tmp_path / "site", analysis_plots=False)
    for width in (1440, 390):
        pg = new_page(browser, width)
        pg.goto((tmp_path / "site" / "runs" / f"{run_slug('llm-run')}.html").as_uri())
        models = pg.locator("#transcript .tr-model").all_inner_texts()
        texts = pg.locator("#transcript .tr-text").all_inner_texts()
        assert [m.split(" · ")[0] for m in models] == ["turn 1", "turn 2", "turn 3", "turn 4"]
        for m, (tin, tout) in zip(models, ((1200, 340), (1500, 45), (2100, 410), (2600, 12))):
            assert f"{tin / 1000:.1f}k in / {tout} out" in m, m
        order = [next(k for k in ("FIRST", "SECOND", "THIRD", "FOURTH") if k in t) for t in texts]
        assert order == ["FIRST", "SECOND", "THIRD", "FOURTH"]                   # each message once, in order
        whole = pg.locator("#transcript").inner_text()
        assert whole.index("turn 2") < whole.index("SECOND-MESSAGE") < whole.index("turn 3")
        assert pg.evaluate("document.documentElement.scrollWidth") <= width and pg.errors == []
        pg.close()
