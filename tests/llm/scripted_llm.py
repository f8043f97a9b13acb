"""Agents and judges pointed at the fake server, and a scripted conversation for it: an agent that plans, checks its
environment, pilots one case, segments the cohort and submits (a tiny lesion dataset), the
judge verdict that follows it, and the agents file that points both at the fake server."""
import json
import re
import threading

from automedbench.llm.registry import AgentConfig

from .fake_openai import call, completion, error, usage

PLAN = """# S1
import os
os.makedirs('plan', exist_ok=True)
open('plan/plan.md', 'w').write('# Plan\\n1. threshold the brain\\n2. z-score lesions\\n3. write masks\\n')
print('plan written')
"""
SEG = """import os, sys, nibabel as nib, numpy as np
def seg(cid):
    img = nib.load(os.path.join(DATA, cid, 'image.nii.gz'))
    x = np.asarray(img.dataobj, dtype=np.float32)
    organ = (x > 50).astype(np.uint8)
    lesion = (x > 150).astype(np.uint8)
    os.makedirs(f'outputs/{cid}', exist_ok=True)
    nib.save(nib.Nifti1Image(organ, img.affine), f'outputs/{cid}/organ.nii.gz')
    nib.save(nib.Nifti1Image(lesion, img.affine), f'outputs/{cid}/lesion.nii.gz')
    return organ.shape, int(organ.sum()), int(lesion.sum())
"""


def agent_script(data_dir):
    head = f"DATA = {data_dir!r}\n"
    return [
        completion("Planning first.", [call("execute_code", {"language": "python", "code": PLAN})],
                   usage_=usage(1000, 200, cached=0)),
        completion(tool_calls=[call("execute_code", {"language": "bash", "code": "# S2\nenv; python -c 'import nibabel'"})],
                   usage_=usage(1500, 100, cached=1000)),
        completion(tool_calls=[call("execute_code", {"language": "python",
                                                     "code": "# S3\n" + head + SEG + "print(seg('case_001'))"})],
                   usage_=usage(2000, 300, cached=1500)),
        completion(tool_calls=[call("execute_code", {"language": "python",
                                                     "code": "# S4\n" + head + SEG + "for c in sorted(os.listdir(DATA)):\n"
                                                     "    if os.path.isdir(os.path.join(DATA, c)): print(c, seg(c))"})],
                   usage_=usage(2500, 300, cached=2000)),
        completion(tool_calls=[call("submit_results", {})], usage_=usage(3000, 20, cached=2500)),
    ]


_VERDICT = {"s1": {"items": {"s1a": 1, "s1b": 1, "s1c": 1}, "rationale": "plan exists with steps"},
           "s2": {"items": {"s2a": 1, "s2b": 0, "s2c": 1, "s2d": 1, "s2e": 0}, "rationale": "no shape check"},
           "s3": {"items": {"s3": 0.5}, "rationale": "pilot printed shape, no inspection"}}


def cite(verdict, calls=(1,)):
    """The verdict with evidence citing `calls` for every item (call #1 is the agent's first call)."""
    out = json.loads(json.dumps(verdict))
    for st in out.values():
        if isinstance(st, dict) and "evidence" not in st:
            st["evidence"] = {i: {"calls": list(calls), "files": []} for i in st["items"]}
    return out


VERDICT = cite(_VERDICT)


def write_agents_yaml(path, url):
    """An agents file naming a fake coder and a fake judge, both served by the fake server at `url`."""
    path.write_text(f"""agents:
  - name: fake-agent
    model: fake-coder
    base_url: {url}
    pricing: {{input_per_mtok: 2.0, output_per_mtok: 8.0}}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
  - name: fake-judge
    model: fake-judge-model
    base_url: {url}
    retry: {{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}}
""")
    return path


def agent_config(url: str, **over) -> AgentConfig:
    """An agent (or judge) configuration for the fake server at `url`; `over` replaces or merges keys."""
    raw = {"name": "fake", "model": "fake-model", "base_url": url, "timeout_s": 5,
           "retry": {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "retry_after_max_s": 2},
           "pricing": {"input_per_mtok": 2.0, "output_per_mtok": 8.0, "cached_input_per_mtok": 0.5}}
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(raw.get(k), dict):
            raw[k] = {**raw[k], **v}
        else:
            raw[k] = v
    return AgentConfig.model_validate(raw)


# ---- many conversations at once (RL rollouts: docs/rl.md "Frameworks") ---------------------------
DATA_LINE = re.compile(r"Input data \(read-only\): `([^`]+)`")


def episode_variants(data_dir: str) -> dict[str, list[dict]]:
    """Scripted agents of different quality on the tiny lesion task, so a group's rewards differ:
    the full workflow, one that skips planning and the pilot, one that skips the environment
    check, and one that submits at once."""
    full = agent_script(data_dir)
    plan, env, pilot, cohort, submit = full
    return {"full": full, "no_plan_no_pilot": [env, cohort, submit], "no_env_check": [plan, pilot, cohort, submit],
            "submit_only": [submit]}


class ConversationScripts:
    """A fake-server responder (FakeOpenAI.default = ConversationScripts(...)) serving many
    conversations at once, each from its own script, whatever order the requests come in.

    A conversation is recognised by the ids of its tool calls (`call_c<N>_...`, which this
    responder gives out); a request with no assistant message yet starts conversation N, which
    plays variant `order[N % len(order)]`. The data folder is read from the system prompt.
    A variant named "fail" answers HTTP 500 (a provider failure: an infrastructure end)."""

    def __init__(self, order: tuple[str, ...] = ("full", "no_plan_no_pilot", "no_env_check", "submit_only")):
        self.order = order
        self.lock = threading.Lock()
        self.started: list[str] = []     # the variant of conversation N

    def __call__(self, request: dict) -> dict:
        messages = request["body"]["messages"]
        assistants = [m for m in messages if m.get("role") == "assistant"]
        ids = [c["id"] for m in assistants for c in (m.get("tool_calls") or [])]
        if ids:
            conv = int(ids[0].split("_")[1][1:])
        else:
            with self.lock:
                conv = len(self.started)
                self.started.append(self.order[conv % len(self.order)])
        variant = self.started[conv]
        if variant == "fail":
            return error(500, "scripted provider failure")
        text = " ".join(m.get("content") or "" for m in messages if m.get("role") == "system")
        found = DATA_LINE.search(text)
        script = episode_variants(found.group(1) if found else "/data/public")[variant]
        turn = len(assistants)
        if turn >= len(script):   # the script is played out: a closing text reply (an agent loop ends on it)
            return completion("Done: the results are submitted.")
        spec = json.loads(json.dumps(script[turn]))
        for j, c in enumerate(spec["json"]["choices"][0]["message"].get("tool_calls") or []):
            c["id"] = f"call_c{conv}_t{turn}_{j}"
        return spec
