"""How the tracks' scripted agents reach the sandbox (docs/tracks.md "Scripted methods").

A track's built-in agents run real Python scripts the track ships beside its methods, in
`<track package>.methods.steps` (`s2_setup.py`, `s3_pilot.py`, `s3_inspect.py`, `s4_batch.py`,
`s5_verify.py`: named after their stage, never after a module of the standard library, which
the script's own folder, first on its path, would shadow); a track may use the shared ones in
`automedbench.tracks.methods.steps` (`s2_image_setup.py`, `s3_pilot.py`). Each takes its
arguments as one JSON object (`--args-json`: the data folder, file names, options). A call of
the agent is a small launcher (`launch`): it copies the script, and any method files the step
installs, into the workspace from literals (what an agent writing its own code would send),
then runs `python scripts/<step>.py --args-json '{...}'`. The recorder sees the copy, the
interpreter opening the script and every file the script reads and writes; the judge reads the
script's text from the literal (docs/judge.md "Content facts: silent checks"). Nothing of the
harness reaches the sandbox but these scripts and the methods.

Also here, for the core's trait agents: the format-aware look at one input (`DESCRIBE_INPUT`)
and the case-folder listing (`case_dirs`).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

# the workspace folder the scripted agents copy a track's step scripts into
SCRIPTS_DIR = "scripts"

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


def step_source(track_package: str, name: str) -> str:
    """The text of `name`, a step script in `<track_package>.methods.steps`."""
    return resources.files(f"{track_package}.methods.steps").joinpath(name).read_text()


# the package of the step scripts any track may use (a per-case method's one-case pilot)
SHARED = __package__ or "automedbench.tracks"


def launch(comment: str, track_package: str, script: str, args: Mapping[str, Any],
           files: Mapping[str, str] | None = None) -> str:
    """Agent code for one call: write `files` (name -> text: the method's files the step
    installs) and the step script `script` of `<track_package>.methods.steps` as
    `scripts/<script>`, then run it with `args` as its JSON arguments; its exit status is the
    call's. `comment` is the call's first line, its stage tag (`S3 pilot ONE case`:
    agents/stage_labels.py)."""
    target = f"{SCRIPTS_DIR}/{script}"
    texts = {**(files or {}), target: step_source(track_package, script)}
    return "\n".join([
        f"# {comment}",
        "import pathlib, subprocess, sys",
        f"pathlib.Path({SCRIPTS_DIR!r}).mkdir(exist_ok=True)",
        f"for name, text in {texts!r}.items():",
        "    pathlib.Path(name).write_text(text)",
        f"r = subprocess.run([sys.executable, {target!r}, '--args-json', {json.dumps(args, sort_keys=True)!r}])",
        "sys.exit(r.returncode)", ""])
