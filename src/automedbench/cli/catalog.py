"""Tasks, datasets, agents and prompts: `tasks list|show`, `data stage|verify|list`, `prompt`,
`agents list|check` (docs/cli.md)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
import yaml
from rich.table import Table
from rich.text import Text

from .. import api
from ..agents import scripted_agents
from ..agents.listing import list_agents
from ..data import dataset_paths
from ..data.from_folder import stage_from_folder, stage_summary, verify_dataset
from ..datasets import all_datasets, stage
from ..datasets import describe as describe_datasets
from ..errors import UserError
from ..llm.check import check_endpoint
from ..llm.registry import get_agent_config
from ..prompts.render import render_prompt
from ..tasks import check_tier, discover, get_task
from .common import TIER_HELP, TIERS_METAVAR, AgentCfg, DataRoot, TasksDir, err, fail, out, user_errors

app = typer.Typer()   # `prompt`
tasks_app = typer.Typer(no_args_is_help=True, help="List and describe tasks.")
data_app = typer.Typer(no_args_is_help=True, help="Build embedded datasets or stage official ones.")
agents_app = typer.Typer(no_args_is_help=True, help="List configured agents.")


@tasks_app.command("list")
def tasks_list(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."), tasks_dir: Optional[list[Path]] = TasksDir,
               data_root: Optional[Path] = DataRoot) -> None:
    """Tasks (built-in and from --tasks-dir / $AUTOMEDBENCH_TASKS): track, dataset, staged?"""
    try:
        tasks = discover(tasks_dir)
    except user_errors() as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps([api.task_info(t, data_root) for t in tasks.values()], indent=2))
        return
    known = all_datasets()
    table = Table("task", "track", "dataset", "staged", "title")
    unknown = []
    for t in tasks.values():
        staged = api.task_info(t, data_root)["dataset_staged"]
        if not staged and t.dataset not in known:   # neither built in nor staged: no run can start
            unknown.append(t)
        table.add_row(t.id, t.track, t.dataset, "yes" if staged else
                      ("[red]unknown dataset[/]" if t.dataset not in known else "no"), t.title)
    out.print(table)
    for t in unknown:
        err.print(f"[yellow]task {t.id}: dataset {t.dataset!r} is neither built in nor staged; stage yours with "
                  f"`automedbench data stage {t.dataset} --from-folder DIR --task {t.id}` (docs/your-task.md)[/]",
                  highlight=False, soft_wrap=True)


@tasks_app.command("show")
def tasks_show(task: str = typer.Argument(..., metavar="TASK", help="Task id."),
               as_json: bool = typer.Option(False, "--json", help="Print JSON instead of YAML."),
               tasks_dir: Optional[list[Path]] = TasksDir, data_root: Optional[Path] = DataRoot) -> None:
    """One task: its YAML, folder, case ids and where its public/private data are."""
    try:
        t = get_task(task, tasks_dir)
    except user_errors() as exc:
        fail(str(exc))
    d = api.task_info(t, data_root)
    if as_json:
        print(json.dumps(d, indent=2))
    else:
        out.print(yaml.safe_dump(d, sort_keys=False, allow_unicode=True))


@data_app.command("stage")
def data_stage(name: str = typer.Argument(..., metavar="DATASET", help="Dataset name (see `data list`)."),
               source: Optional[Path] = typer.Option(None, "--source", metavar="DIR",
                                                     help="Local copy of an official dataset."),
               force: bool = typer.Option(False, "--force", help="Rebuild even if already staged."),
               limit: Optional[int] = typer.Option(None, "--limit", metavar="N", help="Stage at most N cases."),
               download: bool = typer.Option(False, "--download", help="Fetch from the official source (network)."),
               from_folder: Optional[Path] = typer.Option(None, "--from-folder", metavar="DIR",
                                                          help="Your own data: a plain folder (docs/your-task.md)."),
               task: Optional[str] = typer.Option(None, "--task", metavar="TASK",
                                                  help="With --from-folder: the task the data is for (its track "
                                                       "and track_options say what a case holds)."),
               layout: Optional[str] = typer.Option(None, "--layout", metavar="NAME",
                                                    help="With --from-folder: force one of the track's folder layouts "
                                                         "(docs/your-task.md section 2; default: detected)."),
               link: bool = typer.Option(False, "--link", help="With --from-folder: hard-link your files instead of "
                                                               "copying them (no second copy; hashes still kept)."),
               split: Optional[str] = typer.Option(None, "--split", metavar="NAME",
                                                   help="Which split of a release to stage (COCO's instances_NAME, "
                                                        "an ImageFolder's val/ or test/, SLAKE's NAME.json, ...; "
                                                        "default: the layout's, docs/your-task.md section 2)."),
               rename_cases: bool = typer.Option(False, "--rename-cases",
                                                 help="With --from-folder: name each case case_<hash> so no "
                                                      "case id shows a label (the manifest keeps the originals)."),
               tasks_dir: Optional[list[Path]] = TasksDir,
               data_root: Optional[Path] = DataRoot) -> None:
    """Build an embedded dataset, stage an official one, or stage your own folder (--from-folder)
    into DATA_ROOT/DATASET."""
    if from_folder is not None:
        if not task:
            fail("--from-folder needs --task TASK: the task's track and track_options say what a case holds "
                  "(docs/your-task.md)")
        try:
            result = stage_from_folder(name, from_folder, get_task(task, tasks_dir), data_root, force=force,
                                       layout=layout, link=link, split=split, rename_cases=rename_cases)
        except user_errors() as exc:
            fail(str(exc))
        err.print(f"{name}: {result.summary()}", highlight=False, soft_wrap=True)
        for line in result.disk_lines(link):
            err.print(f"   {line}", highlight=False, soft_wrap=True)
        print(result.paths.root)
        return
    options: dict[str, Any] = {k: v for k, v in {"source": source, "limit": limit, "download": download or None,
                                                 "split": split}.items() if v}
    try:
        paths = stage(name, data_root, force=force, **options)
    except (UserError, FileNotFoundError, TypeError) as exc:   # TypeError: an option the builder does not take
        fail(str(exc))
    err.print(f"{name}: {stage_summary(paths.load_manifest())}", highlight=False, soft_wrap=True)
    print(paths.root)


@data_app.command("verify")
def data_verify(name: str = typer.Argument(..., metavar="DATASET", help="A staged dataset."),
                tasks_dir: Optional[list[Path]] = TasksDir, data_root: Optional[Path] = DataRoot) -> None:
    """Check a staged dataset: every file matches its manifest hash, every case has its folders,
    and (staged from a folder) every reference still loads for its task. Exit 1 on a problem."""
    try:
        problems = verify_dataset(name, data_root, load_task=lambda t: get_task(t, tasks_dir))
        n = len(dataset_paths(name, data_root).case_ids())
    except user_errors() as exc:
        fail(str(exc))
    for p in problems[:20]:
        err.print(f"[red]problem:[/] {p}", highlight=False, soft_wrap=True)
    if problems:
        err.print(f"{name}: {len(problems)} problem(s) in {n} cases", highlight=False)
        raise typer.Exit(1)
    out.print(f"{name}: {n} cases, every file matches the manifest", highlight=False)


@data_app.command("list")
def data_list(data_root: Optional[Path] = DataRoot,
              as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """Known datasets (every track's, plug-ins'), their kind (demo / official), origin and whether they are staged."""
    rows = describe_datasets()
    for r in rows:
        p = dataset_paths(r["name"], data_root)
        r.update(staged=p.is_staged(), path=str(p.root))
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("dataset", "kind", "staged", "origin", "path", "description")
    for r in rows:
        table.add_row(r["name"], r["kind"], "yes" if r["staged"] else "no", r["origin"], r["path"], r["description"])
    out.print(table)


@app.command()
def prompt(task: str = typer.Argument(..., metavar="TASK", help="Task id."),
           tier: str = typer.Option("lite", "--tier", metavar=TIERS_METAVAR, help=TIER_HELP), tasks_dir: Optional[list[Path]] = TasksDir) -> None:
    """Print the exact rendered system prompt of a task and tier (as the bwrap sandbox lays it out)."""
    try:
        print(render_prompt(get_task(task, tasks_dir), check_tier(tier)), end="")
    except user_errors() as exc:
        fail(str(exc))


@agents_app.command("list")
def agents_list(agent_config: Optional[list[Path]] = AgentCfg,
                as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """Agent classes (scripted, calibration, plug-ins) and LLM agents from the registry (built-in
    examples + --agent-config files)."""
    try:
        rows = list_agents(agent_config)
    except user_errors() as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("agent", "kind", "model", "base_url", "key env (set?)", "$ in/out per Mtok", "source", "description")
    for r in rows:
        key = "" if not r["api_key_env"] else f"{r['api_key_env']} ({'yes' if r['key_set'] else 'no'})"
        price = "" if r["input_per_mtok"] is None else f"{r['input_per_mtok']:g} / {r['output_per_mtok']:g}"
        table.add_row(r["name"], r["kind"], r["model"] or "", r["base_url"] or "", key, price, str(r["source"]),
                      Text(r["description"] or ""))
    out.print(table)


@agents_app.command("check")
def agents_check(names: list[str] = typer.Argument(..., metavar="NAME", help="Registry agent names."),
                 agent_config: Optional[list[Path]] = AgentCfg,
                 as_json: bool = typer.Option(False, "--json", help="Print JSON instead of lines.")) -> None:
    """Send one tiny request and one tool-call request to each agent's endpoint: reachable?
    which model answered? native tool calls? how fast? Exit 2 on a configuration error."""
    for n in [n for n in names if n in scripted_agents()]:
        out.print(f"{n}: a scripted agent (no endpoint to check)", highlight=False)
    try:
        checks = [check_endpoint(get_agent_config(n, agent_config)) for n in names if n not in scripted_agents()]
    except user_errors() as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps([c.as_dict() for c in checks], indent=2))
    for c in checks if not as_json else []:
        if c.ok:
            tools = {True: "yes", False: "no (text replies only)", None: "not checked"}[c.tool_calls]
            out.print(f"[green]ok[/] {c.name}: {c.base_url} reachable, model {c.answered_model or c.model!r} "
                      f"answered in {c.latency_s:.2f} s; tool calling: {tools}", highlight=False, soft_wrap=True)
            for note in c.notes:
                out.print(f"   note: {note}", highlight=False, soft_wrap=True)
        else:
            kind = "configuration error" if c.config_error else "not usable now"
            err.print(f"[bold red]{kind}:[/] {c.message()}", highlight=False, soft_wrap=True)
    if any(c.config_error for c in checks):
        raise typer.Exit(2)
    if not all(c.ok for c in checks):
        raise typer.Exit(1)
