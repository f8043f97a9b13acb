"""What the two isolating backends (bwrap/, docker/) do alike, written once: the host
folders a sandbox is given, its effects recorder, one watched call (the decoy watcher and the
effects recorder around it, the charge and the advisory after it); docs/sandbox.md "Observed
effects", "Whose decoy accesses"."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import advisory
from .base import ExecResult, SandboxError, SandboxSpec
from .inputs import InputView
from .inside import DATA_INSIDE, WORKSPACE_INSIDE
from .netns import TAP, SandboxNetwork
from .observe.decoy import DecoyWatcher, charge
from .observe.effects import EffectsRecorder, netdev_counters, observe


def host_dirs(spec: SandboxSpec) -> tuple[Path, Path]:
    """(public, workspace) on the host, resolved: a missing public folder is refused before
    anything is created; the workspace is made."""
    public, workspace = Path(spec.public_dir).resolve(), Path(spec.workspace).resolve()
    if not public.is_dir():
        raise SandboxError(f"public data directory {public} does not exist")
    workspace.mkdir(parents=True, exist_ok=True)
    return public, workspace


def effects_recorder(spec: SandboxSpec, workspace: Path, inputs: InputView, net: SandboxNetwork | None,
                     is_ours: Callable[[int], bool] | None) -> EffectsRecorder | None:
    """The sandbox's recorder of what each call does (None when the spec records none): the
    workspace and the inputs' host folders seen at their inside paths, the network device's
    counters when the network is on; `is_ours` tells a call's processes from others ("Whose reads")."""
    if not spec.record_effects:
        return None
    return EffectsRecorder((str(workspace), WORKSPACE_INSIDE), (str(inputs.path), DATA_INSIDE),
                           net=(lambda: netdev_counters(net.pid, TAP)) if net is not None else None,
                           reads_shared=not inputs.private, is_ours=is_ours)


def watched_call(watcher: DecoyWatcher, effects: EffectsRecorder | None, language: str, code: str,
                 run: Callable[[], ExecResult]) -> ExecResult:
    """Run one call (`run`) between the watchers: nothing seen before it is its own; the decoy
    accesses during it are charged to its result, its effects recorded and the advisory's
    warnings added."""
    watcher.drain()
    watcher.take_openers()
    if effects is not None:
        effects.begin()
    result = run()
    events = watcher.drain()
    openers = watcher.take_openers()
    observe(effects, result)
    charge(result, events, watcher.attributed, openers)
    result.warnings.extend(advisory.scan(language, code))
    return result
