"""Write src/automedbench/cli/help_pages.py: every command's `--help` page as typer prints it on
a terminal 80 or more columns wide (docs/cli.md "Start-up"). `automedbench run --help` then
answers from that file without importing typer or the command's module.

    .venv/bin/python scripts/cli_help_pages.py           # rewrite the file
    .venv/bin/python scripts/cli_help_pages.py --check   # exit 1 if it is out of date

tests/test_cli.py fails when a command's help changed and this was not run again.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "src" / "automedbench" / "cli" / "help_pages.py"
HEADER = '''"""Every command's `--help` page as typer prints it on a terminal 80 or more columns wide
(cli/table.py command_help; docs/cli.md "Start-up"). Generated: do not edit; run
`python scripts/cli_help_pages.py` after changing a command's help (tests/test_cli.py checks)."""
from __future__ import annotations

'''


def source() -> str:
    from automedbench.cli.root import command_paths, render_help
    pages = {" ".join(path): render_help(path) for path in command_paths()}
    body = "".join(f"    {name!r}:\n        {text!r},\n" for name, text in pages.items())
    return HEADER + "PAGES: dict[str, str] = {\n" + body + "}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the file is up to date")
    args = parser.parse_args()
    text = source()
    if args.check:
        current = TARGET.read_text() if TARGET.exists() else ""
        print(f"{TARGET}: {'up to date' if current == text else 'OUT OF DATE'}")
        return 0 if current == text else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
