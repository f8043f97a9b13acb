"""Collect episodes of a task through verifiers' own rollout collection (docs/rl.md "Frameworks").

    python examples/rl/verifiers_collect.py --out /tmp/vf-episodes
        # 4 groups of 4 episodes of brain-lesion-seg (lite) on a tiny synthetic dataset, the model
        # being a loopback OpenAI-compatible server that replays scripted tool calls (offline)
    python examples/rl/verifiers_collect.py --out eps --base-url http://127.0.0.1:8000/v1 --model my-policy \
        --task brain-lesion-seg --tier lite
        # the same against your own OpenAI-compatible endpoint (vLLM, SGLang...) and staged data

verifiers loads the environment by module (`vf.load_environment`), `env.evaluate` asks the model
and steps each rollout's MedEnv episode; each rollout leaves a normal run folder under --out.
Prints one line per episode and writes <out>/rollouts.json (group, run_dir, reward, error, and the
advantage of each rollout in its group with the infra rollouts dropped, beside verifiers' own:
`group_stats`, docs/rl.md "Group statistics over verifiers rollouts").
tests/rl/test_adapter_verifiers.py runs this file.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def collect(base_url: str, model: str, out_dir: Path, *, task: str, tier: str, options: Any,
            groups: int = 4, per_group: int = 4) -> list[dict[str, Any]]:
    """`groups` x `per_group` episodes through verifiers' env.evaluate; one row per rollout."""
    import verifiers as vf
    from openai import AsyncOpenAI

    env = vf.load_environment("automedbench.rl.adapters.verifiers_env", task_id=task, tier=tier,
                              out_dir=out_dir, options=options, num_examples=groups)
    client = vf.OpenAIChatCompletionsClient(AsyncOpenAI(base_url=base_url, api_key="unused", max_retries=0))
    results = env.evaluate_sync(client, model, num_examples=groups, rollouts_per_example=per_group,
                                state_columns=["automedbench", "advantage"])
    outputs = results["outputs"]
    stats = group_stats(outputs)
    rows = []
    for out in outputs:
        facts = out["automedbench"]
        place = sum(1 for r in rows if r["group"] == out["example_id"])   # the rollout's place in its group
        rows.append({"group": out["example_id"], "seed": facts["seed"], "run_dir": facts["run_dir"],
                     "reward": None if math.isnan(out["reward"]) else out["reward"],
                     "infra": facts["infra"], "end_reason": facts["end_reason"],
                     "error": (out.get("error") or {}).get("error") if isinstance(out.get("error"), dict)
                     else (str(out["error"]) if out.get("error") else None),
                     "metrics": {k: (None if isinstance(v, float) and math.isnan(v) else v)
                                 for k, v in out["metrics"].items()},
                     "advantage": stats[out["example_id"]].advantages[place],
                     "verifiers_advantage": out.get("advantage"),
                     "verifiers_avg_reward": None if math.isnan(results["metadata"]["avg_reward"])
                     else results["metadata"]["avg_reward"]})
    return rows


def group_stats(outputs: list[dict[str, Any]]) -> dict[int, Any]:
    """Each group's (example_id's) mean, std and advantages with its infra rollouts dropped:
    verifiers' own `advantage` is 0 and its `avg_reward` NaN once a group holds one."""
    from automedbench.rl import group_statistics

    rewards: dict[int, list[float | None]] = {}
    for out in outputs:   # in verifiers' order; a rollout with an error is dropped, never counted as 0
        rewards.setdefault(out["example_id"], []).append(None if out.get("error") else out["reward"])
    return {group: group_statistics(rs) for group, rs in rewards.items()}


def scripted_setup(out: Path, order: tuple[str, ...] | None = None) -> tuple[Any, Any]:
    """The offline stand-ins: a tiny lesion dataset and the scripted loopback server."""
    if str(REPO) not in sys.path:   # run as a script: the repository's tests/ package holds the stand-ins
        sys.path.insert(0, str(REPO))
    from automedbench.runs.options import RunOptions
    from tests.helpers import tiny_lesion_dataset
    from tests.llm.fake_openai import FakeOpenAI
    from tests.llm.scripted_llm import ConversationScripts

    tiny_lesion_dataset(out / "data" / "mni-brain-lesion", n_cases=3)
    server = FakeOpenAI().start()
    server.default = ConversationScripts(order) if order else ConversationScripts()
    return server, RunOptions(data_root=out / "data", exec_timeout_s=60)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--base-url", help="an OpenAI-compatible endpoint; default: the scripted loopback server")
    ap.add_argument("--model", default="fake-model")
    ap.add_argument("--task", default="brain-lesion-seg")
    ap.add_argument("--tier", default="lite")
    ap.add_argument("--groups", type=int, default=4)
    ap.add_argument("--per-group", type=int, default=4)
    ap.add_argument("--order", help="scripted variants, comma-separated (scripted server only)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    server = None
    if args.base_url:
        from automedbench.runs.options import RunOptions
        options, base_url = RunOptions(), args.base_url
    else:
        server, options = scripted_setup(args.out, tuple(args.order.split(",")) if args.order else None)
        base_url = server.url
    try:
        rows = collect(base_url, args.model, args.out / "episodes", task=args.task, tier=args.tier, options=options,
                       groups=args.groups, per_group=args.per_group)
    finally:
        if server is not None:
            server.stop()
    for r in rows:
        print(f"group {r['group']} seed {r['seed']:>5}  reward {r['reward']}  {r['end_reason']}  {r['run_dir']}")
    (args.out / "rollouts.json").write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
