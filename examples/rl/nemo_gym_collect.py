"""Collect episodes of a task through NeMo Gym's own servers and rollout collection (docs/rl.md
"Frameworks"). Needs Python >= 3.12 with nemo-gym 0.4.0 and automedbench installed: `make test-rl-nemo-gym`
builds such an environment (.venv-nemo-gym) and runs this file's test in it.

    python examples/rl/nemo_gym_collect.py --out /tmp/ng-episodes
        # 4 groups of 4 episodes of brain-lesion-seg (lite) on a tiny synthetic dataset; the model
        # is a loopback OpenAI-compatible server that replays scripted tool calls (offline)
    python examples/rl/nemo_gym_collect.py --out eps --base-url http://127.0.0.1:8000/v1 --model my-policy

It writes NeMo Gym's config (our resources server, its `simple_agent`, its `vllm_model` pointed at
the endpoint) and the dataset rows (one a group), starts the servers with `ng_run` (each server's
venv is this interpreter's: `skip_venv_if_present`, no install), collects with
`ng_collect_rollouts +num_repeats=<group size>`, and stops the servers. Each rollout leaves a
normal run folder under <out>/episodes. Prints one line per rollout and writes <out>/rollouts.json.
tests/rl/test_adapter_nemo_gym.py runs this file.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SERVERS = {"resources_servers/automedbench": "automedbench_resources",
           "responses_api_agents/simple_agent": "automedbench_agent",
           "responses_api_models/vllm_model": "policy_model"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(work: Path, *, base_url: str, model: str, task: str, tier: str, out_dir: Path,
                 data_root: Path | None, network: bool | None = None) -> Path:
    """NeMo Gym's config: the three servers, each run by this interpreter (no per-server venv)."""
    app_dir = work / "resources_servers" / "automedbench"
    app_dir.mkdir(parents=True, exist_ok=True)
    (app_dir / "app.py").write_text("from automedbench.rl.adapters.nemo_gym import AutoMedBenchResourcesServer\n\n"
                                    "if __name__ == '__main__':\n    AutoMedBenchResourcesServer.run_webserver()\n")
    # NeMo Gym takes a server folder of the working directory when it has its requirements
    (app_dir / "requirements.txt").write_text("automedbench[rl-nemo-gym]\n")
    for server in SERVERS:   # skip_venv_if_present: <uv_venv_dir>/<type>/<name>/.venv is this environment
        venv = work / "venvs" / server / ".venv"
        venv.parent.mkdir(parents=True, exist_ok=True)
        if not venv.exists():
            venv.symlink_to(Path(sys.prefix))
    cfg = {
        "automedbench_resources": {"resources_servers": {"automedbench": {
            "entrypoint": "app.py", "domain": "agent", "task_id": task, "tier": tier, "out_dir": str(out_dir),
            "data_root": str(data_root) if data_root else None, "exec_timeout_s": 60,
            # the policy as run.json records it; the sandbox's network as the task says (network: null)
            "model": model, "network": network}}},
        "automedbench_agent": {"responses_api_agents": {"simple_agent": {
            "entrypoint": "app.py", "max_steps": 60,
            "resources_server": {"type": "resources_servers", "name": "automedbench_resources"},
            "model_server": {"type": "responses_api_models", "name": "policy_model"}}}},
        "policy_model": {"responses_api_models": {"vllm_model": {
            "entrypoint": "app.py", "base_url": base_url, "api_key": "unused", "model": model,
            "return_token_id_information": False, "uses_reasoning_parser": False,
            "uses_interleaved_reasoning": False, "chat_template_kwargs": None, "extra_body": None,
            "default_headers": {}}}},
        "uv_venv_dir": str(work / "venvs"), "skip_venv_if_present": True,
        "head_server": {"host": "127.0.0.1", "port": _free_port()},
    }
    path = work / "automedbench.yaml"
    path.write_text(json.dumps(cfg, indent=1))   # JSON is YAML
    return path


def collect(base_url: str, model: str, out: Path, *, task: str, tier: str, options: Any, groups: int = 4,
            per_group: int = 4, timeout_s: float = 900, server_env: dict[str, str] | None = None,
            network: bool | None = None) -> list[dict[str, Any]]:
    """`groups` x `per_group` rollouts through NeMo Gym's servers and collection; one row per rollout
    (`failed`: NeMo Gym put it in the failures sidecar). `server_env`: extra environment of the servers.
    `network`: the sandbox's network (None: as the task says)."""
    from automedbench.rl.adapters.nemo_gym import dataset_rows

    work = out / "nemo_gym"
    work.mkdir(parents=True, exist_ok=True)
    episodes = out / "episodes"
    rows = dataset_rows(task, tier, groups, options=options, out_dir=work / "probe")
    (work / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = write_config(work, base_url=base_url, model=model, task=task, tier=tier, out_dir=episodes,
                          data_root=getattr(options, "data_root", None), network=network)
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    log = (work / "ng_run.log").open("w")
    servers = subprocess.Popen([str(bin_dir / "ng_run"), f"+config_paths=[{config}]"], cwd=work,
                               env={**env, **(server_env or {})},
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output = work / "rollouts.jsonl"
        cmd = [str(bin_dir / "ng_collect_rollouts"), f"+config_paths=[{config}]", "+agent_name=automedbench_agent",
               f"+input_jsonl_fpath={work / 'rows.jsonl'}", f"+output_jsonl_fpath={output}",
               f"+num_repeats={per_group}", f"+num_samples_in_parallel={groups * per_group}",
               "+upload_rollouts_to_wandb=false"]
        _wait_for_servers(work / "ng_run.log", servers, timeout_s)
        done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout_s)
        (work / "collect.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            raise RuntimeError(f"ng_collect_rollouts failed ({done.returncode}): {done.stderr[-3000:]}")
        failures = output.with_name(output.stem + "_failures.jsonl")
        results = [dict(json.loads(line), _failed=False) for line in output.read_text().splitlines()]
        if failures.exists():
            results += [dict(json.loads(line), _failed=True) for line in failures.read_text().splitlines()]
    finally:
        os.killpg(servers.pid, signal.SIGINT)
        try:
            servers.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(servers.pid, signal.SIGKILL)
        log.close()
    return [{"group": r["_ng_task_index"], "rollout": r["_ng_rollout_index"], "reward": r["reward"],
             "failed": r["_failed"], "failure_class": r.get("_ng_failure_class"), **r["automedbench"]}
            for r in sorted(results, key=lambda r: (r["_ng_task_index"], r["_ng_rollout_index"]))]


def _wait_for_servers(log_path: Path, proc: subprocess.Popen, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = log_path.read_text(errors="replace")
        if "servers ready!" in text:
            return
        if proc.poll() is not None:
            raise RuntimeError(f"ng_run exited ({proc.returncode}):\n{text[-3000:]}")
        time.sleep(2)
    raise RuntimeError(f"NeMo Gym servers not up after {timeout_s} s:\n{log_path.read_text()[-3000:]}")


def _scripted_setup(out: Path) -> tuple[Any, Any]:
    """The verifiers example's offline stand-ins (a tiny dataset, the scripted loopback server)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("verifiers_collect", Path(__file__).with_name("verifiers_collect.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scripted_setup(out)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--base-url", help="an OpenAI-compatible endpoint; default: the scripted loopback server")
    ap.add_argument("--model", default="fake-model")
    ap.add_argument("--task", default="brain-lesion-seg")
    ap.add_argument("--tier", default="lite")
    ap.add_argument("--groups", type=int, default=4)
    ap.add_argument("--per-group", type=int, default=4)
    ap.add_argument("--network", choices=("task", "on", "off"), default="task",
                    help="the sandbox's network (default: as the task says)")
    args = ap.parse_args(argv)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    server = None
    if args.base_url:
        from automedbench.runs.options import RunOptions
        options, base_url = RunOptions(), args.base_url
    else:
        server, options = _scripted_setup(args.out)
        base_url = server.url
    try:
        rows = collect(base_url, args.model, args.out, task=args.task, tier=args.tier, options=options,
                       groups=args.groups, per_group=args.per_group,
                       network=None if args.network == "task" else args.network == "on")
    finally:
        if server is not None:
            server.stop()
    for r in rows:
        print(f"group {r['group']} seed {r['seed']:>5}  reward {r['reward']}  {r['end_reason']}  {r['run_dir']}")
    (args.out / "rollouts.json").write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
