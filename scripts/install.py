"""Install requirements into the running virtual environment: uv when it can, pip otherwise.

`make demo` and `make test` run this with the project venv's interpreter (docs/testing.md,
"Setup time"). pip takes about 75 s here to resolve `.[test]` (~140 wheels): it reads and
filters every candidate on each package's whole index page, one package at a time. uv, a PyPI
package itself, resolves and installs the same versions in about 10 s.

uv does not read pip's configuration, so the settings that decide *what* pip would install
(index, extra indexes, find-links, constraint files, certificate bundle, trusted hosts,
timeout; from pip's config files and PIP_* variables, as `pip config list` shows them) are
handed to uv, with uv's index strategy set to pip's (best version across all indexes). Any
other pip setting, or any failure of uv, falls back to pip: slower, the same install.

    python scripts/install.py [--no-deps] REQUIREMENT...     (e.g. -e '.[test]')
    python scripts/install.py --uv-env                       (print what uv would be given)
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time

# pip settings that do not change which files are installed; any other one makes us use pip.
HARMLESS = {"default-timeout", "timeout", "retries", "disable-pip-version-check", "no-cache-dir",
            "progress-bar", "quiet", "verbose", "root-user-action", "no-compile", "no-input",
            "break-system-packages", "no-warn-script-location", "cache-dir", "require-virtualenv",
            "config-file"}
# pip setting (a whitespace-separated list where it takes several) -> (uv variable, uv's
# separator for a list, or None for a single value)
TRANSLATED = {"index-url": ("UV_DEFAULT_INDEX", None),
              "extra-index-url": ("UV_INDEX", " "),
              "find-links": ("UV_FIND_LINKS", ","),
              "constraint": ("UV_CONSTRAINT", " "),
              "trusted-host": ("UV_INSECURE_HOST", " "),
              "cert": ("SSL_CERT_FILE", None)}
# `pip config list` names each value by section (its config files already merged): what
# `pip install` uses is [global], overridden by [install], overridden by PIP_* variables
# (":env:"); other sections ([freeze], [download], ...) are for other pip commands.
SECTION_RANK = {"global": 0, "install": 1, ":env:": 2}


def pip_settings(config_lines: list[str]) -> dict[str, str]:
    """`pip config list` lines (`section.key='value'`) -> the value `pip install` uses for each key."""
    chosen: dict[str, tuple[int, str]] = {}
    for line in config_lines:
        name, sep, raw = line.partition("=")
        section, dot, key = name.rpartition(".")
        if not sep or not dot or section not in SECTION_RANK:
            continue
        rank = SECTION_RANK[section]
        value = " ".join(shlex.split(raw)) if raw.strip() else ""
        if key not in chosen or rank >= chosen[key][0]:
            chosen[key] = (rank, value)
    return {key: value for key, (_, value) in chosen.items()}


def uv_environment(settings: dict[str, str]) -> dict[str, str] | None:
    """uv's variables for pip's settings, or None when a setting has no faithful translation."""
    env = {"UV_INDEX_STRATEGY": "unsafe-best-match",   # pip's rule: best version on any index
           "UV_NATIVE_TLS": "1"}                        # the system's certificates, as pip's truststore
    for key, value in settings.items():
        if key in HARMLESS:
            if key in ("timeout", "default-timeout") and value:
                env["UV_HTTP_TIMEOUT"] = value
            continue
        if key == "no-index":   # a flag: pip reads yes/true/on/1
            if value.lower() in ("1", "yes", "true", "on"):
                env["UV_NO_INDEX"] = "1"
            continue
        if key not in TRANSLATED:
            return None
        variable, separator = TRANSLATED[key]
        items = value.split()
        env[variable] = separator.join(items) if separator else (items[0] if items else "")
    return env


def _pip_config() -> list[str]:
    shown = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                           capture_output=True, text=True, check=False)
    return shown.stdout.splitlines() if shown.returncode == 0 else []


def _uv_binary() -> str | None:
    """uv inside this venv, installed by pip (one small wheel) when missing."""
    uv = os.path.join(os.path.dirname(sys.executable), "uv")
    if not os.path.exists(uv):
        got = subprocess.run([sys.executable, "-m", "pip", "install", "-qq", "--no-compile", "uv"],
                             check=False)
        if got.returncode != 0:
            return None
    return uv if os.path.exists(uv) else None


def install(requirements: list[str], no_deps: bool) -> int:
    started = time.monotonic()
    extra = ["--no-deps"] if no_deps else []
    env = uv_environment(pip_settings(_pip_config()))
    uv = _uv_binary() if env is not None and os.environ.get("AUTOMEDBENCH_INSTALL_WITH", "uv") == "uv" else None
    if env is not None and uv is not None:
        done = subprocess.run([uv, "pip", "install", "--quiet", "--python", sys.executable, *extra,
                               *requirements], env={**os.environ, **env}, check=False)
        if done.returncode == 0:
            print(f"installed {' '.join(requirements)} with uv in {time.monotonic() - started:.0f} s")
            return 0
        print("uv could not install; installing with pip instead (slower)", file=sys.stderr)
    elif env is None:
        print("pip is configured with a setting uv cannot be given; installing with pip", file=sys.stderr)
    return subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", *extra,
                           *requirements], check=False).returncode


def main(argv: list[str]) -> int:
    if argv == ["--uv-env"]:
        env = uv_environment(pip_settings(_pip_config()))
        print("\n".join(f"{k}={v}" for k, v in sorted(env.items())) if env is not None else "pip")
        return 0
    no_deps = "--no-deps" in argv
    requirements = [arg for arg in argv if arg != "--no-deps"]
    if not requirements:
        print(__doc__, file=sys.stderr)
        return 2
    return install(requirements, no_deps)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
