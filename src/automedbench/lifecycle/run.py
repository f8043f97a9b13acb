"""One run end to end, prepare → open → act → close → score, and the re-scoring of a saved run."""
from __future__ import annotations

from pathlib import Path

from ..errors import RunInterrupted
from ..runs.layout import new_run_id
from ..runs.models import DetailReport
from ..runs.options import RunOptions
from ..sandbox.docker.backend import score_in_container
from ..scoring.score_run import score_run
from .act import act
from .policy import interrupts_as_exceptions
from .prepare import prepare_run
from .session import OpenRun, close_run, open_run


def run_one(task_id: str, tier: str, agent_name: str, out_dir: Path | str = "runs",
            options: RunOptions | None = None, *, run_dir: Path | str | None = None) -> DetailReport:
    """Run one (task, tier, agent) cell end to end and score it. Returns its DetailReport;
    `report.run_dir` is the run directory (run.json, trace, conversation, workspace), created
    under `out_dir` unless `run_dir` names it. `options`: sandbox, network, judges, data...
    (runs/options.py; the defaults when None).

    User errors (unknown task/tier/agent/judge/backend, missing key, unstaged data) raise
    UserError before anything runs. Agent faults (crash, limits, violations) end the run and
    are recorded; the run is still scored. A sandbox that cannot start or dies, or a provider
    that stays down, ends the run as `infra_error` (scored null, never charged to the agent).
    Ctrl-C / SIGTERM close the run as `interrupted`, unscored, and raise RunInterrupted."""
    options = options or RunOptions()
    prep = prepare_run(task_id, tier, agent_name, options)
    run_id = new_run_id(agent_name, prep.task.id, tier)
    where = Path(run_dir) if run_dir else Path(out_dir) / run_id
    with interrupts_as_exceptions():
        try:
            run = open_run(prep, tier, agent_name, where, options, run_id)
            try:
                act(run)
            finally:
                close_run(run)
        except KeyboardInterrupt as exc:   # recorded as `interrupted` by the phase it hit
            name = exc.signal_name if isinstance(exc, RunInterrupted) else "SIGINT"
            raise RunInterrupted(name, str(where)) from None
    return score(run)


def score(run: OpenRun) -> DetailReport:
    """Score a closed run with the judge it was prepared with (detail_report.json)."""
    return score_run(run.files.dir, judge=run.prep.judge, agent_configs=run.options.agent_config_paths,
                     container_scorer=score_in_container, task=run.prep.task)


def rescore(run_dir: Path | str, *, force: bool = False, answer_judge: str | None = None,
            agent_configs: list[Path] | None = None) -> DetailReport:
    """Re-score a saved run from its workspace outputs (no agent); rewrites detail_report.json.
    An interrupted run raises RunIncompleteError (a UserError) unless `force`."""
    return score_run(Path(run_dir), force=force, answer_judge=answer_judge, agent_configs=agent_configs,
                     container_scorer=score_in_container)
