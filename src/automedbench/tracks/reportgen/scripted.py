"""Code the built-in scripted agents send through execute_code for report-generation tasks.

reference: writes the rule-based report writer (methods/report_writer.py) into the workspace,
checks one study's manifest and views, pilots ONE study, reads the report back, runs all,
verifies every report exists. careless: same writer with --careless (it ignores the body part
and treats every study as a chest film: the leg studies get chest reports), no pilot.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .options import ReportGenOptions

METHOD = Path(__file__).with_name("methods") / "report_writer.py"


class ReportScriptedMethods:
    def __init__(self, options: ReportGenOptions):
        self.output_file = options.output_file

    def plan_steps(self) -> list[str]:
        return [
            "Read each study's manifest.json: body part, views and their positions.",
            "Pick the frontal view (PA/AP) and normalise its grey levels.",
            ("Chest: measure lower-zone and basal density per hemithorax (consolidation, effusion) "
            "and blob responses per zone (nodules); leg: transverse lucent lines across the tibial shaft."),
            "Compare every feature with the cohort (robust z-score) and threshold it into findings.",
            "Write FINDINGS + IMPRESSION sentences per study into outputs/<study_id>/report.txt.",
            "Pilot one study, read the report back, then run all and verify every report exists.",
        ]

    def setup_code(self, data_dir: str) -> str:
        return (
            "# S2 setup: install the method, check the runtime and one input\n"
            "import json, pathlib, numpy, scipy, PIL\n"
            "from PIL import Image\n"
            "print('numpy', numpy.__version__, 'scipy', scipy.__version__, 'pillow', PIL.__version__)\n"
            f"pathlib.Path('report_writer.py').write_text({METHOD.read_text()!r})\n"
            f"data = pathlib.Path({data_dir!r})\n"
            "first = sorted(p for p in data.iterdir() if (p / 'manifest.json').is_file())[0]\n"
            "study = json.loads((first / 'manifest.json').read_text())\n"
            "print('study', first.name, 'body part', study.get('body_part'), 'views', len(study['views']))\n"
            "for v in study['views']:\n"
            "    im = Image.open(first / v['file'])\n"
            "    print(v['file'], v.get('view_position'), 'size', im.size, 'mode', im.mode)\n"
        )

    def pilot_code(self, data_dir: str) -> str:
        return (
            "# S3 pilot ONE case end to end\n"
            "import pathlib, subprocess, sys\n"
            f"data = pathlib.Path({data_dir!r})\n"
            "first = sorted(p.name for p in data.iterdir() if (p / 'manifest.json').is_file())[0]\n"
            "r = subprocess.run([sys.executable, 'report_writer.py', str(data), 'outputs', '--only', first],\n"
            "                   capture_output=True, text=True)\n"
            "print(r.stdout, r.stderr); print('pilot exit', r.returncode)\n"
        )

    def inspect_code(self, data_dir: str) -> str:
        return (
            "# S3 inspect the pilot output against its input\n"
            "import json, pathlib\n"
            f"data = pathlib.Path({data_dir!r})\n"
            "first = sorted(p.name for p in data.iterdir() if (p / 'manifest.json').is_file())[0]\n"
            f"text = (pathlib.Path('outputs') / first / {self.output_file!r}).read_text(encoding='utf-8')\n"
            "print(text)\n"
            "study = json.loads((data / first / 'manifest.json').read_text())\n"
            "print('study', first, study.get('body_part'), 'views', [v.get('view_position') for v in study['views']])\n"
            "assert text.strip(), 'empty report'\n"
            "assert 'FINDINGS:' in text, 'no FINDINGS section'\n"
            "print('words:', len(text.split()), '| sections ok')\n"
        )

    def batch_code(self, data_dir: str, careless: bool) -> str:
        flag = ", '--careless'" if careless else ""
        return (
            "# S4 inference on every case\n"
            "import subprocess, sys\n"
            f"r = subprocess.run([sys.executable, 'report_writer.py', {data_dir!r}, 'outputs'{flag}],\n"
            "                   capture_output=True, text=True)\n"
            "print(r.stdout, r.stderr, 'exit', r.returncode)\n"
        )

    def verify_code(self, data_dir: str) -> str:
        return (
            "# S5 verify every case before submitting\n"
            "import pathlib\n"
            f"data = pathlib.Path({data_dir!r})\n"
            "expected = sorted(p.name for p in data.iterdir() if (p / 'manifest.json').is_file())\n"
            f"missing = [s for s in expected if not (pathlib.Path('outputs') / s / {self.output_file!r}).is_file()]\n"
            "print(len(expected) - len(missing), 'of', len(expected), 'reports written; missing:', missing)\n"
        )
