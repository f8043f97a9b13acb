"""scripts/install.py: `make`'s installer gives uv what pip is configured with, and falls back
to pip (docs/testing.md, "Setup time"). Offline: a wheel built here, a fresh venv, no index."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pip
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "install.py"
UV = Path(sys.executable).parent / "uv"


def _uv_env(**pip_env: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env.update({"PIP_CONFIG_FILE": os.devnull, **pip_env})
    shown = subprocess.run([sys.executable, str(SCRIPT), "--uv-env"], env=env,
                           capture_output=True, text=True, check=True)
    return shown.stdout


def test_pips_settings_are_handed_to_uv_with_uvs_separators() -> None:
    shown = _uv_env(PIP_INDEX_URL="file:///mirror/simple", PIP_EXTRA_INDEX_URL="file:///a file:///b",
                    PIP_FIND_LINKS="/w1 /w2", PIP_CONSTRAINT="/c.txt", PIP_CERT="/ca.pem",
                    PIP_DEFAULT_TIMEOUT="42")
    assert shown.splitlines() == [
        "SSL_CERT_FILE=/ca.pem", "UV_CONSTRAINT=/c.txt", "UV_DEFAULT_INDEX=file:///mirror/simple",
        "UV_FIND_LINKS=/w1,/w2", "UV_HTTP_TIMEOUT=42", "UV_INDEX=file:///a file:///b",
        "UV_INDEX_STRATEGY=unsafe-best-match", "UV_NATIVE_TLS=1"]


def test_install_section_overrides_global_and_other_commands_sections_are_ignored(tmp_path: Path) -> None:
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = file:///global\ntimeout = 7\n[install]\nindex-url = file:///install\n"
                    "[freeze]\nfind-links = /for-freeze-only\n")
    shown = _uv_env(PIP_CONFIG_FILE=str(conf)).split()
    assert "UV_DEFAULT_INDEX=file:///install" in shown and "UV_HTTP_TIMEOUT=7" in shown, shown
    assert not any(line.startswith("UV_FIND_LINKS=") and "for-freeze-only" in line for line in shown), shown
    assert "UV_DEFAULT_INDEX=file:///env" in _uv_env(PIP_CONFIG_FILE=str(conf), PIP_INDEX_URL="file:///env").split()


def test_a_pip_setting_uv_cannot_be_given_means_pip() -> None:
    assert _uv_env(PIP_REQUIRE_HASHES="1").strip() == "pip"
    assert "UV_NO_INDEX=1" in _uv_env(PIP_NO_INDEX="yes").split()
    assert "UV_NO_INDEX" not in _uv_env(PIP_NO_INDEX="0")


def _wheel(folder: Path, name: str, version: str) -> Path:
    """A minimal pure-Python wheel (PEP 427), written by hand: building one would need an index."""
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"VERSION = {version!r}\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
    return wheel


@pytest.mark.skipif(not UV.exists(), reason="uv is not in this venv (make's install fell back to pip)")
def test_installs_into_a_fresh_venv_with_uv_and_with_pip_offline(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "amb_tiny", "1.2.3")
    venv = tmp_path / "venv"
    # --without-pip + a path file lending this venv's pip: ensurepip would take 3 s per run
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    lent = Path(pip.__file__).resolve().parents[1]
    (next((venv / "lib").glob("python*/site-packages")) / "lent_pip.pth").write_text(f"{lent}\n")
    (venv / "bin" / "uv").symlink_to(UV)   # the script installs uv only when the venv lacks it
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels),
               UV_CACHE_DIR=str(tmp_path / "uv-cache"))
    python = str(venv / "bin" / "python")
    check = [python, "-c", "import amb_tiny; print(amb_tiny.VERSION)"]

    by_uv = subprocess.run([python, str(SCRIPT), "amb_tiny==1.2.3"], env=env, capture_output=True, text=True)
    assert by_uv.returncode == 0 and "with uv" in by_uv.stdout, by_uv
    assert subprocess.run(check, capture_output=True, text=True).stdout.strip() == "1.2.3"

    shutil.rmtree(next((venv / "lib").glob("python*/site-packages/amb_tiny")))
    by_pip = subprocess.run([python, str(SCRIPT), "--no-deps", "--force-reinstall", "amb_tiny==1.2.3"],
                            env={**env, "AUTOMEDBENCH_INSTALL_WITH": "pip"}, capture_output=True, text=True)
    assert by_pip.returncode == 0 and "with uv" not in by_pip.stdout, by_pip
    assert subprocess.run(check, capture_output=True, text=True).stdout.strip() == "1.2.3"

    missing = subprocess.run([python, str(SCRIPT), "amb_absent==9"], env=env, capture_output=True, text=True)
    assert missing.returncode != 0 and "installing with pip instead" in missing.stderr, missing
