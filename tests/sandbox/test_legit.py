"""Legitimate work runs with zero violations (no false positives)."""
from __future__ import annotations

import shutil

import pytest

from .conftest import needs_bwrap, pip_index_problem

pytestmark = [needs_bwrap, pytest.mark.bwrap]


@pytest.fixture(scope="module")
def nifti_case(world):
    return float(world.nifti_volume.mean())


LEGIT = [
    ("numpy-scipy-matplotlib-pil", "python",
     "import numpy as np, scipy.ndimage as ndi, matplotlib.pyplot as plt\nfrom PIL import Image\n"
     "a = ndi.gaussian_filter(np.random.rand(32, 32), 1)\nplt.imshow(a); plt.savefig('plan.png')\n"
     "Image.fromarray((a * 255).astype('uint8')).save('x.png')\nprint('ok', a.shape)"),
    ("subprocess-list-args", "python",
     "import subprocess\nprint(subprocess.run(['ls', '-1', '/data/public'], capture_output=True, text=True, check=True).stdout)\nprint('ok')"),
    ("harmless-strings", "python",
     "import re\nfrom pathlib import Path\npat = re.compile(r'case_(\\d+)')\nsrc = 'model = torch.compile(model)'\n"
     "p = Path('/workspace/a/b/c.txt')\nprint(p.parent.parent, bool(pat.match('case_00001')), 'ok')"),
    ("os-walk-workspace", "python",
     "import os\nos.makedirs('outputs/case_00000', exist_ok=True)\nopen('outputs/case_00000/pred.txt','w').write('1')\n"
     "print([d for d, _, _ in os.walk('/workspace')]); print('ok')"),
    ("walk-public", "bash", "find /data/public -type f | sort; du -sh /data/public; echo ok"),
    ("write-outputs-10mb", "python", "import numpy as np\nnp.save('big.npy', np.zeros(10 * 2**20 // 8))\nprint('ok')"),
    ("tmp-and-cache", "python",
     "import tempfile, os\nwith tempfile.NamedTemporaryFile() as f: f.write(b'x')\nos.makedirs(os.path.expanduser('~/.cache/x'), exist_ok=True)\nprint('ok')"),
    ("multiprocessing", "python",
     "from multiprocessing import Pool\nif __name__ == '__main__':\n    with Pool(2) as p: print(p.map(abs, [-1, -2]))\n    print('ok')"),
    ("gcc-hello", "bash", "printf '#include <stdio.h>\\nint main(){puts(\"ok\");}' > h.c && gcc h.c -o h && ./h"),
    ("pip-and-venv", "bash", "pip --version && python -m venv --without-pip v && v/bin/python -c 'print(1)' && echo ok"),
    ("localhost-server", "python",
     "import socket, threading\ns = socket.socket(); s.bind(('localhost', 0)); s.listen()\n"
     "threading.Thread(target=lambda: s.accept()[0].sendall(b'hi'), daemon=True).start()\n"
     "c = socket.create_connection(('localhost', s.getsockname()[1])); print(c.recv(2), 'ok')"),
    ("python-identity", "bash", "which python python3; python -c 'import sys; print(sys.version)'; id -un; echo ok"),
]


@pytest.mark.parametrize("name,language,code", LEGIT, ids=[x[0] for x in LEGIT])
def test_legit_workload(box, name, language, code):
    r = box.execute(language, code, timeout_s=60)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "ok" in r.stdout
    assert r.violations == []
    assert not [w for w in r.warnings if w["kind"] == "training_detected"]


def test_nibabel_on_public_data(box, world, nifti_case):
    code = ("import glob, nibabel as nib, numpy as np\n"
            "f = sorted(glob.glob('/data/public/*/imaging.nii.gz'))[0]\nimg = nib.load(f)\n"
            "a = np.asarray(img.dataobj)\nprint(a.shape, float(a.mean()))\n"
            "nib.save(nib.Nifti1Image((a > a.mean()).astype('uint8'), img.affine), 'organ.nii.gz')\n")
    r = box.execute("python", code)
    assert r.exit_code == 0, r.stderr
    assert f"(4, 5, 6) {nifti_case}" in r.stdout
    assert r.violations == []
    out = world.workspace / "organ.nii.gz"
    assert out.is_file()
    import nibabel as nib
    assert nib.load(str(out)).shape == (4, 5, 6)


def test_training_code_warns(box):
    r = box.execute("python", "class M:\n  def train(self): pass\nm = M()\nm.train()\n# loss.backward()\nprint('ok')")
    kinds = [w["kind"] for w in r.warnings]
    assert "training_detected" in kinds and r.violations == []


@pytest.mark.slow
def test_pip_install_with_network_on(world, tmp_path):
    """Network on: `pip install` lands in the workspace user site and imports."""
    why = pip_index_problem(tmp_path)
    if why:
        pytest.skip(why)
    if shutil.which("slirp4netns") is None:
        pytest.skip("network on needs slirp4netns (apt-get install slirp4netns)")
    from automedbench.sandbox import SandboxSpec
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    with BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws", network=True)) as box:
        r = box.execute("bash", "pip install -q tomli-w && python -c 'import tomli_w; print(tomli_w.__file__)'", timeout_s=120)
    assert r.exit_code == 0, r.stderr[-2000:]
    assert r.stdout.strip().startswith("/workspace/.local/") and r.violations == []
