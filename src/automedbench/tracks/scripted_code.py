"""Agent-code pieces shared by the tracks' scripted agents (text sent through execute_code).

Each track's `scripted.py` writes the code its built-in agents run; the parts that do not
depend on the track (listing the case folders, the one-process batch loop over a method's
`main`) live here so a fix reaches every track.
"""
from __future__ import annotations

import textwrap


def case_dirs(data_dir: str) -> str:
    """A Python expression: the sorted case folders of `data_dir` (names starting with `_`,
    e.g. `_examples/`, are not cases). The code it is pasted into must import pathlib."""
    return (f"sorted(p for p in pathlib.Path({data_dir!r}).iterdir() "
            "if p.is_dir() and not p.name.startswith('_'))")


def per_case_batch(data_dir: str, module: str, method_file: str, imports: str, careless_bug: str = "") -> str:
    """S4: import `module` once and call its ``main([method_file, case_dir, out_dir])`` for
    every case into ``outputs/<case_id>/``. `careless_bug` is code run inside the loop after
    each case (names in scope: i, cid, out, data, method + `imports`)."""
    bug = textwrap.indent(textwrap.dedent(careless_bug), "    ") if careless_bug else ""
    return textwrap.dedent(f"""\
        # S4 inference on every case (one process, the method imported once)
        import pathlib, sys
        {imports}
        sys.path.insert(0, ".")
        import {module} as method
        data = pathlib.Path({data_dir!r})
        cases = [p.name for p in {case_dirs(data_dir)}]
        for i, cid in enumerate(cases):
            out = pathlib.Path("outputs") / cid
            code = method.main(["{method_file}", str(data / cid), str(out)])
            print(cid, "exit", code)
        """) + bug + "print('done', len(cases), 'cases')\n"
