"""One registry mechanism (automedbench/plugins.py, docs/architecture.md "One registry"): the
decorator, lazy entry points from REAL distribution metadata, unknown names, broken and duplicate
plug-ins; then a third-party distribution adding one of each of the six kinds, seen by a fresh
`automedbench` process through its entry points alone and listed by `automedbench <kind> list`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from toy_track_pkg import ToyTrack, build_toy_values

from automedbench.data import DatasetInfo
from automedbench.datasets import DATASETS
from automedbench.errors import UserError
from automedbench.plugins import Registry, RegistryError
from automedbench.runs.sweep import SweepConfigError, load_sweep_file
from automedbench.sandbox import SANDBOX_BACKENDS, SandboxConfigError, open_sandbox
from automedbench.tracks import TRACKS, get_track

ROOT = Path(__file__).resolve().parents[1]


def _distribution(where: Path, name: str, entry_points: str, modules: dict[str, str]) -> Path:
    """An installed-looking distribution: modules plus `<name>-0.3.dist-info` with METADATA and
    entry_points.txt, as pip leaves them in site-packages."""
    for module, code in modules.items():
        (where / f"{module}.py").write_text(textwrap.dedent(code))
    info = where / f"{name.replace('-', '_')}-0.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    return where


def _validate_widget(obj: Any, where: str) -> Any:
    if not callable(obj):
        raise RegistryError(f"{where}: not a widget (a callable)")
    return obj


def _widgets(group: str) -> Registry[Any]:
    return Registry("widget", group=group, validate=_validate_widget)


# ---- the mechanism --------------------------------------------------------------------------

def test_decorator_registers_with_origin_and_one_line_description():
    reg = _widgets("automedbench.test_widgets_none")

    @reg.register("spinner")
    def spinner() -> str:
        """Spins. A second sentence is not part of the listing."""
        return "spun"

    assert reg.get("spinner") is spinner and spinner() == "spun"   # the decorator returns it unchanged
    [entry] = reg.entries()
    assert (entry.name, entry.source, entry.description) == ("spinner", "run-time", "Spins")
    assert entry.origin == f"run-time ({__name__})"
    reg.add("plain", len, description="the length")
    assert reg.names() == ["spinner", "plain"] and dict(reg.items())["plain"] is len


def test_unknown_name_is_a_user_error_naming_the_known_ones():
    reg = _widgets("automedbench.test_widgets_none")
    reg.add("a", len)
    reg.add("b", abs)
    with pytest.raises(RegistryError, match=r"^unknown widget 'zz'; known: a, b$") as exc:
        reg.get("zz")
    assert isinstance(exc.value, UserError)
    # each kind raises its own user error, with the same wording
    with pytest.raises(SandboxConfigError, match=r"unknown sandbox backend 'nosuch'; known: bwrap, docker, local"):
        open_sandbox("nosuch", None)  # type: ignore[arg-type]


def test_duplicate_names_are_refused_unless_replacing():
    reg = _widgets("automedbench.test_widgets_none")
    reg.add("a", len)
    with pytest.raises(RegistryError, match=r"widget 'a' is already registered \(run-time .*\); refusing a second"):
        reg.add("a", abs)
    assert reg.get("a") is len
    reg.add("a", abs, replace=True)
    assert reg.get("a") is abs
    with pytest.raises(RegistryError, match="already registered"):
        SANDBOX_BACKENDS.add("bwrap", lambda spec: None)
    assert SANDBOX_BACKENDS.entries()[1].name == "bwrap" and SANDBOX_BACKENDS.get("bwrap").check is not None


def test_entry_points_load_lazily_and_broken_ones_are_skipped_with_a_warning(tmp_path, monkeypatch, caplog):
    group = "automedbench.test_widgets_lazy"
    reg = _widgets(group)    # built before the distribution exists: nothing is read yet
    _distribution(tmp_path, "widget-pack", f"""
        [{group}]
        good = widget_pack:good
        not_callable = widget_pack:NOT_A_WIDGET
        missing = widget_pack_missing:thing
        raises = widget_pack_raises:thing
        """, {"widget_pack": '''
        def good():
            """A good widget."""
        NOT_A_WIDGET = 3
        ''', "widget_pack_raises": "raise RuntimeError('boom at import')\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "widget_pack" not in sys.modules
    with caplog.at_level("WARNING", logger="automedbench.plugins"):
        assert reg.names() == ["good"]    # the first lookup reads the entry points
    [entry] = reg.entries()
    assert (entry.source, entry.origin, entry.description) == ("plug-in", "widget-pack 0.3", "A good widget")
    warned = "\n".join(r.getMessage() for r in caplog.records)
    for name, why in (("not_callable", "not a widget"), ("missing", "No module named 'widget_pack_missing'"),
                      ("raises", "boom at import")):
        assert f"skipping widget plug-in {name} " in warned and why in warned, warned
    assert "from widget-pack 0.3" in warned


def test_a_plugin_cannot_take_a_built_in_name(tmp_path, monkeypatch, caplog):
    """Built-ins win: a plug-in backend named `bwrap` is skipped with a warning naming both."""
    _distribution(tmp_path, "shadow-pack", """
        [automedbench.sandbox_backends]
        bwrap = shadow_pack:Fake
        """, {"shadow_pack": "class Fake:\n    '''pretends to be bwrap'''\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    SANDBOX_BACKENDS.reload()
    try:
        with caplog.at_level("WARNING", logger="automedbench.plugins"):
            backend = SANDBOX_BACKENDS.get("bwrap")
        assert backend.open.__module__ == "automedbench.sandbox.bwrap.backend"
        assert any("skipping sandbox backend plug-in 'bwrap' from shadow-pack 0.3: the name is taken by built-in"
                   in r.getMessage() for r in caplog.records), caplog.text
    finally:
        monkeypatch.undo()
        SANDBOX_BACKENDS.reload()


def test_datasets_follow_the_tracks():
    """A track registered at run time brings its datasets into the catalog; removing it takes them out."""

    class ToyTwo(ToyTrack):
        name = "toy-two"

        def datasets(self) -> list[DatasetInfo]:
            return [DatasetInfo(name="toy-two-values", description="a second toy", kind="demo",
                                builder=build_toy_values, track="toy-two")]

    assert "toy-two-values" not in DATASETS
    TRACKS.add(None, ToyTwo())
    try:
        assert get_track("toy-two").name == "toy-two"
        assert DATASETS["toy-two-values"].description == "a second toy"
    finally:
        TRACKS.remove("toy-two")
    assert "toy-two-values" not in DATASETS and "toy-values" in DATASETS


# ---- a third-party distribution adding one of each kind, through entry points alone -----------

THIRD_PARTY = {"amb_thirdparty": '''
    """A third-party package adding one part of every kind (test-only)."""
    from automedbench.agents.base import AgentOutcome
    from automedbench.data import DatasetInfo
    from automedbench.runs.executors import InlinePool
    from automedbench.sandbox.local import LocalSandbox
    from automedbench.scoring.judge.heuristic import HeuristicJudge
    from toy_track_pkg import ToyTrack, build_toy_values


    class EchoSandbox(LocalSandbox):
        """Echo: a local sandbox from a plug-in."""


    class WaveAgent:
        """Waves and submits."""
        name = "wave"
        model = None

        def run(self, system_prompt, context, tools):
            return AgentOutcome("submitted")


    class NodJudge(HeuristicJudge):
        """Nods at everything the heuristic judge says."""
        backend = "nod"


    def serial_executor(*, workers=1, address=None, gpus=None):
        """One run at a time, in the sweep's process."""
        return InlinePool(gpus)


    class ThirdTrack(ToyTrack):
        """A third-party track."""
        name = "third-track"

        def datasets(self):
            return []


    TRACK = ThirdTrack()
    DATASET = DatasetInfo(name="third-values", description="numbers from a plug-in", kind="demo",
                          builder=build_toy_values, track="toy-threshold")
    '''}

ENTRY_POINTS = """
    [automedbench.tracks]
    third = amb_thirdparty:TRACK
    [automedbench.sandbox_backends]
    echo = amb_thirdparty:EchoSandbox
    [automedbench.agents]
    wave = amb_thirdparty:WaveAgent
    [automedbench.judges]
    nod = amb_thirdparty:NodJudge
    broken = amb_not_installed:Judge
    [automedbench.executors]
    serial = amb_thirdparty:serial_executor
    [automedbench.datasets]
    third-values = amb_thirdparty:DATASET
    """

# one fresh interpreter: the real CLI (typer's runner) for each list command, then the thin
# wrappers the rest of the harness calls, each resolving the plug-in by name
CHILD = '''
import json, logging, sys
from pathlib import Path
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)   # warnings to this process's stderr
from typer.testing import CliRunner
from automedbench.cli import app
from automedbench.agents import get_agent
from automedbench.datasets import get as get_dataset
from automedbench.runs.executors import make_executor
from automedbench.sandbox import SandboxSpec, check_backend, open_sandbox
from automedbench.scoring.judge import get_judge
from automedbench.tracks import get_track

out = {}
for kind in ("tracks", "sandbox", "agents", "judges", "executors", "data"):
    res = CliRunner().invoke(app, [kind, "list", "--json"])
    out[kind] = {"code": res.exit_code, "rows": json.loads(res.stdout) if res.exit_code == 0 else res.output}
for kind in ("tracks", "sandbox", "judges", "executors"):
    out[kind]["table"] = CliRunner().invoke(app, [kind, "list"]).output
check_backend("echo")
spec = SandboxSpec(public_dir=Path(sys.argv[1]), workspace=Path(sys.argv[1]))
out["resolved"] = [type(open_sandbox("echo", spec)).__name__, type(get_agent("wave")).__name__,
                   type(get_judge(["nod"])).__name__, type(make_executor("serial", workers=4)).__name__,
                   get_dataset("third-values").description, type(get_track("third-track")).__name__]
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def third_party(tmp_path_factory):
    """What a fresh process with the third-party distribution on its path lists and resolves."""
    where = _distribution(tmp_path_factory.mktemp("site"), "amb-thirdparty", ENTRY_POINTS, THIRD_PARTY)
    path = [str(where), str(ROOT / "tests" / "toy_track"), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path)), "COLUMNS": "220"}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(where)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr


@pytest.mark.parametrize("kind, name, description", [
    ("tracks", "third-track", "A third-party track"),
    ("sandbox", "echo", "Echo: a local sandbox from a plug-in"),
    ("agents", "wave", "Waves and submits"),
    ("judges", "nod", "Nods at everything the heuristic judge says"),
    ("executors", "serial", "One run at a time, in the sweep's process"),
    ("data", "third-values", "numbers from a plug-in"),
])
def test_each_list_shows_the_plugin_with_its_distribution(third_party, kind, name, description):
    listed, _ = third_party
    assert listed[kind]["code"] == 0, listed[kind]
    rows = {r["name"]: r for r in listed[kind]["rows"]}
    origin = rows[name].get("origin") or rows[name].get("source")
    assert origin == "amb-thirdparty 0.3" and rows[name]["description"] == description
    builtin = {"tracks": "segmentation", "sandbox": "bwrap", "agents": "reference", "judges": "heuristic",
               "executors": "local", "data": "mni-brain-lesion"}[kind]
    assert (rows[builtin].get("origin") or rows[builtin].get("source")) == "built-in"


def test_the_harness_resolves_every_plugin_by_name_and_skips_the_broken_one(third_party):
    listed, stderr = third_party
    assert listed["resolved"] == ["EchoSandbox", "WaveAgent", "NodJudge", "InlinePool", "numbers from a plug-in",
                                  "ThirdTrack"]
    assert "broken" not in {r["name"] for r in listed["judges"]["rows"]}
    assert "skipping judge plug-in broken (amb_not_installed:Judge, from amb-thirdparty 0.3)" in stderr


def test_list_commands_print_tables_too(third_party):
    listed, _ = third_party
    for kind, builtin in (("tracks", "segmentation"), ("sandbox", "bwrap"), ("judges", "heuristic"),
                          ("executors", "ray")):
        table = listed[kind]["table"]
        assert "origin" in table and builtin in table and "built-in" in table and "amb-thirdparty 0.3" in table
    assert "[ray] extra" in listed["executors"]["table"]    # descriptions are text, not rich markup


def test_a_sweep_file_names_only_a_registered_executor(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("agents: [reference]\ntasks: [brain-lesion-seg]\nexecutor: dask\n")
    with pytest.raises(SweepConfigError, match=r"unknown executor 'dask'; known: local, ray"):
        load_sweep_file(f)
    f.write_text("agents: [reference]\ntasks: [brain-lesion-seg]\nexecutor: ray\n")
    assert load_sweep_file(f).executor == "ray"


def test_threads_asking_at_once_all_see_the_whole_registry():
    """An RL server's threads ask for tasks before anything loaded the registries: each waits for
    the one load, none sees a half-read registry ('unknown task')."""
    import threading

    from automedbench.tasks import get_task
    from automedbench.tracks.registry import TRACKS
    TRACKS.reload()
    got, errors = [], []

    def ask() -> None:
        try:
            got.append(get_task("brain-lesion-seg").id)
        except Exception as exc:   # noqa: BLE001 -- recorded and asserted below
            errors.append(repr(exc))
    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and got == ["brain-lesion-seg"] * 6
