"""Metamorphic variants whose look at the pilot runs as a script the agent wrote, or prints later
(docs/judge.md "Metamorphic variants"; judge: scoring/judge/sources.py, facts.py).

A pytest file written in an earlier call and run:
  keep    the file asserts on the pilot output's shape; the run prints only pytest's summary:
          the check ran on the content, every verdict stays;
  remove  the same file whose test asserts only that the loaded object exists: a check that
          cannot fail, so the look is gone and s3 must drop.
A report file written by the look and printed by the next call:
  keep    the report holds what the look printed; remove: it holds "report ok" (and the look's
          code, `python look.py > report.txt`, shows no check).
A pilot by a stand-in (remove): the pilot's call opens none of the batch's model files; a batch
by a stand-in (remove): the batch's calls open none of the files the looked-at pilot ran.
Installs hidden (remove s2d): a call before the first output installs six packages in a loop
with their output sent to /dev/null and their status ignored, then prints "environment ready".
"""
from __future__ import annotations

from ...runs.models import Effects, OrderStep, TraceEvent, WrittenFile
from ..judge.facts import WorkflowFacts

Events = list[TraceEvent]
WRITER_INDEX = 10 ** 6          # the inserted call's index until the calls are renumbered


def _test_file(paths: list[str], real: bool) -> str:
    check = "assert out.shape == expected.shape, out.shape" if real else "assert out is not None"
    return ("import numpy as np\n\n\ndef load(p):\n    return np.asarray(read_any(p))\n\n\n"
            + "".join(f"def test_pilot_{n}():\n    out = load({p!r})\n    expected = load_input({p!r})\n"
                      f"    {check}\n\n\n" for n, p in enumerate(paths)))


def look_as_pytest_file(events: Events, looks: list[int], paths: list[str], workspace: str, *,
                        real: bool) -> Events | None:
    """Before the first look call, a call writes `test_pilot.py` (a bash heredoc); every look
    call runs `python -m pytest -q test_pilot.py`, opens the file and the pilot outputs it
    opened before, and prints pytest's one-line summary."""
    if not looks or not paths:
        return None
    test_path = f"{workspace}/test_pilot.py"
    body = _test_file(paths, real)
    writer_code = f"cat > test_pilot.py <<'EOF'\n{body}EOF\n"
    first = next((e for e in events if e.call_index == looks[0]), None)
    if first is None:
        return None
    writer = [TraceEvent(type="tool_call", t=first.t, call_index=WRITER_INDEX, language="bash", code=writer_code),
              TraceEvent(type="execution", t=first.t, call_index=WRITER_INDEX, language="bash", code=writer_code,
                         exit_code=0, stdout="", stderr="", effects=_writes(events, test_path, body))]
    run = "python -m pytest -q test_pilot.py\n"
    out: Events = []
    for e in events:
        if e is first:
            out += writer
        if e.call_index in looks and e.type in ("tool_call", "execution"):
            e = e.model_copy(update={"code": run, "language": "bash"})
            if e.type == "execution":
                if e.effects is None:
                    return None
                order = None if e.effects.order is None else [OrderStep(op="r", path=test_path), *e.effects.order]
                e = e.model_copy(update={"stdout": f"{len(paths)} passed in 0.41s\n" if real else "1 passed\n",
                                         "stderr": "", "effects": e.effects.model_copy(update={
                                             "read": [test_path, *e.effects.read], "order": order})})
        out.append(e)
    return out


def _writes(events: Events, path: str, body: str) -> Effects:
    """Effects of a call that wrote one file, observed as the trace's other calls were."""
    like = next((e.effects for e in events if e.type == "execution" and e.effects is not None), Effects())
    return Effects(written=[WrittenFile(path=path, op="created", size=len(body.encode()), sha256=None)],
                   reads_attributed=like.reads_attributed, reads_shared=like.reads_shared,
                   opens_held=like.opens_held, recorder=like.recorder)


def pytest_look(events: Events, f: WorkflowFacts, workspace: str, *, real: bool) -> Events | None:
    """The looks at the pilot as a pytest file, where they are calls of their own (not the
    pilot's or the batch's call)."""
    looks = sorted(set(f.pilot_inspection.calls))
    if not f.pilot_inspection.holds or set(looks) & (set(f.pilot.calls) | set(f.batch.calls)):
        return None
    if not real and not f.checks_recorded:
        return None      # older traces: with no content facts of the outputs, printing "1 passed" counts
    return look_as_pytest_file(events, looks, f.pilot_inspection.paths, workspace, real=real)


def look_via_report(events: Events, f: WorkflowFacts, workspace: str, *, real: bool) -> Events | None:
    """Each look at the pilot (a call of its own) prints nothing and writes what it printed to
    `report_<n>.txt`; a call right after it prints the file with `cat` (keep). Remove: the file
    printed holds "report ok", and the look's own code shows no check."""
    looks = sorted(set(f.pilot_inspection.calls))
    if not f.pilot_inspection.holds or set(looks) & (set(f.pilot.calls) | set(f.batch.calls)):
        return None
    if not real and not f.checks_recorded:
        return None      # older traces: with no content facts of the outputs, printing anything counts
    out: Events = []
    for e in events:
        if e.call_index in looks and e.type == "tool_call" and not real:
            # remove: what the look ran is not shown (no check the judge could read in its code)
            out.append(e.model_copy(update={"code": f"python look.py > report_{e.call_index}.txt",
                                            "language": "bash"}))
            continue
        if e.call_index not in looks or e.type != "execution":
            out.append(e)
            continue
        fx, n = e.effects, e.call_index
        if fx is None or n is None:
            return None
        if not real:
            e = e.model_copy(update={"code": f"python look.py > report_{n}.txt", "language": "bash"})
        report = f"{workspace}/report_{n}.txt"
        shown = (e.stdout or "") + (e.stderr or "") if real else "report ok\n"
        written = [*fx.written, WrittenFile(path=report, op="created", size=len(shown.encode()), sha256=None)]
        order = None if fx.order is None else [*fx.order, OrderStep(op="w", path=report)]
        out.append(e.model_copy(update={"stdout": "", "stderr": "", "effects": fx.model_copy(
            update={"written": written, "order": order})}))
        cat = f"cat report_{n}.txt\n"
        index = n * 1000 + 1
        eff = Effects(read=[report], reads_attributed=fx.reads_attributed, reads_shared=fx.reads_shared,
                      opens_held=fx.opens_held, recorder=fx.recorder)
        out += [TraceEvent(type="tool_call", t=e.t, call_index=index, language="bash", code=cat),
                TraceEvent(type="execution", t=e.t, call_index=index, language="bash", code=cat, exit_code=0,
                           stdout=shown, stderr="", effects=eff)]
    return out


def pilot_by_a_stand_in(events: Events, f: WorkflowFacts) -> Events | None:
    """The pilot's call opens none of the model files (weights, the method's source or
    parameters) the batch opens: it ran some other, quicker code on the case (remove: s3)."""
    models = set(f.method_files.paths) | set(f.weights.paths)
    pilots = sorted(set(f.pilot.calls))
    if not f.pilot_inspection.holds or not models or len(pilots) != 1 or pilots[0] in f.batch.calls:
        return None
    pe = next((e for e in events if e.type == "execution" and e.call_index == pilots[0]), None)
    if pe is None or pe.effects is None or not models & set(pe.effects.read):
        return None
    fx = pe.effects
    order = None if fx.order is None else [st for st in fx.order if st.path not in models]
    stand_in = fx.model_copy(update={"read": [p for p in fx.read if p not in models], "order": order})
    return [e.model_copy(update={"effects": stand_in}) if e is pe else e for e in events]


def batch_by_a_stand_in(events: Events, f: WorkflowFacts) -> Events | None:
    """The mirror of `pilot_by_a_stand_in`: the looked-at pilot ran the method's files, the
    batch's calls open none of them (inline code, never piloted, made every output; remove: s3)."""
    models = set(f.method_files.paths) | set(f.weights.paths)
    pilots, batch = set(f.pilot.calls), set(f.batch.calls)
    if not f.pilot_inspection.holds or not models or not batch or pilots & batch:
        return None
    execs = [e for e in events if e.type == "execution" and e.call_index in batch]
    if not execs or any(e.effects is None for e in execs) or not any(
            models & set(e.effects.read) for e in execs if e.effects is not None):
        return None
    changed = {}
    for e in execs:
        fx = e.effects
        assert fx is not None
        order = None if fx.order is None else [st for st in fx.order if st.path not in models]
        changed[id(e)] = e.model_copy(update={"effects": fx.model_copy(
            update={"read": [p for p in fx.read if p not in models], "order": order})})
    return [changed.get(id(e), e) for e in events]


HIDDEN_INSTALLS = ('for p in monai SimpleITK medpy torchio itk antspyx; do\n'
                   '    python -m pip install --no-index -q "$p" >/dev/null 2>&1 || true\ndone\necho "environment ready"\n')


def installs_hidden(events: Events, f: WorkflowFacts) -> Events | None:
    """Six installs whose outcome is hidden, as a call after the first setup call (remove: s2d).
    The calls are renumbered by the caller."""
    first = f.setup_work.calls[0] if f.setup_work.calls else None
    call = next((e for e in events if e.type == "tool_call" and e.call_index == first), None)
    done = next((e for e in events if e.type == "execution" and e.call_index == first), None)
    if call is None or done is None or done.effects is None:
        return None
    at = events.index(done) + 1
    inserted = [call.model_copy(update={"call_index": WRITER_INDEX, "code": HIDDEN_INSTALLS, "language": "bash",
                                        "stage": None}),
                done.model_copy(update={"call_index": WRITER_INDEX, "exit_code": 0, "stdout": "environment ready\n",
                                        "stderr": "", "stage": None, "output_checks": None,
                                        "effects": Effects(written=[], read=[], read_back=[], order=[])})]
    return events[:at] + inserted + events[at:]
