"""Export the JSON Schemas of every saved artifact to schemas/ (tests pin them).

    python -m automedbench.runs.schemas [OUT_DIR]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import BaseModel

from ..data.manifest import Manifest
from .layout import RunMeta
from .models import Conversation, DetailReport, TraceEvent

SCHEMAS: dict[str, type[BaseModel]] = {
    "detail_report.schema.json": DetailReport,
    "trace_event.schema.json": TraceEvent,
    "conversation.schema.json": Conversation,
    "run_meta.schema.json": RunMeta,
    "manifest.schema.json": Manifest,
}


def render_schemas() -> dict[str, str]:
    return {name: json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
            for name, model in SCHEMAS.items()}


def export(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas().items():
        (out_dir / name).write_text(text)
        written.append(out_dir / name)
    return written


if __name__ == "__main__":
    for p in export(Path(sys.argv[1] if len(sys.argv) > 1 else "schemas")):
        print(p)
