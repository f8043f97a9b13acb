"""Agent-code pieces shared by the tracks' scripted agents (text sent through execute_code).

Each track's `scripted.py` writes the code its built-in agents run; the parts that do not
depend on the track (listing the case folders, the one-case pilot run, the one-process batch
loop over a method's `main`) live here so a fix reaches every track.
"""
from __future__ import annotations

import textwrap
from importlib import resources

# agent code: a format-aware look at one input file (shape / dtype / value range where the
# format says); the input formats are the tracks' knowledge, so the core's trait agents take it from here
DESCRIBE_INPUT = '''
def describe(p):
    import json
    import numpy as np
    s = p.name.lower()
    if s.endswith((".nii", ".nii.gz")):
        import nibabel as nib
        img = nib.load(str(p)); a = np.asarray(img.dataobj)
        return f"shape {a.shape} dtype {a.dtype} spacing {img.header.get_zooms()} range {float(a.min()):.1f}..{float(a.max()):.1f}"
    if s.endswith(".npy"):
        a = np.load(p)
        return f"shape {a.shape} dtype {a.dtype} range {float(a.min()):.1f}..{float(a.max()):.1f}"
    if s.endswith((".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")):
        from PIL import Image
        im = Image.open(p); a = np.asarray(im)
        return f"size {im.size} mode {im.mode} range {int(a.min())}..{int(a.max())}"
    if s.endswith(".json"):
        return "json keys " + str(sorted(json.loads(p.read_text()))[:6])
    data = p.read_bytes()
    return f"{len(data)} bytes, first bytes {data[:12]!r}"
'''


def case_dirs(data_dir: str) -> str:
    """A Python expression: the sorted case folders of `data_dir` (names starting with `_`,
    e.g. `_examples/`, are not cases). The code it is pasted into must import pathlib."""
    return (f"sorted(p for p in pathlib.Path({data_dir!r}).iterdir() "
            "if p.is_dir() and not p.name.startswith('_'))")


def method_source(track_package: str, name: str) -> str:
    """The text of `name`, a method file a track ships in `<track_package>.methods`."""
    return resources.files(f"{track_package}.methods").joinpath(name).read_text()


def image_setup(data_dir: str, method_file: str, source: str, image_file: str, *, what: str,
                after: str = "") -> str:
    """S2 for a track whose cases hold one 2-D image: write the method file, print the runtime's
    versions, open the first case's `image_file` and print its size, mode, dtype and value range.
    `what` ends the comment line; `after` is more setup code (names in scope: pathlib, numpy,
    Image, first)."""
    return textwrap.dedent(f"""\
        # S2 setup: install the {what}, check the runtime and one input
        import pathlib, numpy, scipy, PIL
        from PIL import Image
        pathlib.Path({method_file!r}).write_text({source!r})
        print("numpy", numpy.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
        first = {case_dirs(data_dir)}[0] / {image_file!r}
        im = Image.open(first)
        a = numpy.asarray(im)
        print("input", first.parent.name, "size", im.size, "mode", im.mode, "dtype", a.dtype,
              "range", int(a.min()), int(a.max()))
        """) + textwrap.dedent(after)


def per_case_pilot(data_dir: str, method_file: str, input_file: str | None = None) -> str:
    """S3: run ``python <method_file> <first case> outputs/<case_id>`` as a subprocess on the
    first case only. With `input_file`, the method gets ``<case>/<input_file>`` instead of
    the case folder."""
    arg = f"case / {input_file!r}" if input_file else "case"
    return textwrap.dedent(f"""\
        # S3 pilot ONE case end to end
        import pathlib, subprocess, sys
        case = {case_dirs(data_dir)}[0]
        r = subprocess.run([sys.executable, {method_file!r}, str({arg}), f"outputs/{{case.name}}"],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr); print("pilot exit", r.returncode)
        """)


def per_case_batch(data_dir: str, module: str, method_file: str, imports: str, careless_bug: str = "",
                   input_file: str | None = None) -> str:
    """S4: import `module` once and call its ``main([method_file, case_dir, out_dir])`` for
    every case into ``outputs/<case_id>/``; with `input_file`, ``main`` gets
    ``<case_dir>/<input_file>`` instead of the case folder. `careless_bug` is code run inside
    the loop after each case (names in scope: i, cid, out, data, method + `imports`)."""
    bug = textwrap.indent(textwrap.dedent(careless_bug), "    ") if careless_bug else ""
    arg = f"data / cid / {input_file!r}" if input_file else "data / cid"
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
            code = method.main(["{method_file}", str({arg}), str(out)])
            print(cid, "exit", code)
        """) + bug + "print('done', len(cases), 'cases')\n"
