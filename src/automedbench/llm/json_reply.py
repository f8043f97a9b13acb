"""The JSON value in a model's reply (the workflow judge's verdicts, the answer judge's scores)."""
from __future__ import annotations

import json
import re
from typing import Any


def extract_json(text: str) -> Any:
    """The JSON value in a model reply: the whole text (a ```json fence removed), else the first
    object in it. Raises ValueError (json.JSONDecodeError is one) when there is none."""
    s = text.strip()
    m = re.match(r"^```(?:json)?\s*\n?(.*?)\n?```$", s, re.DOTALL)
    if m:
        s = m.group(1).strip()
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    start = s.find("{")
    if start < 0:
        raise ValueError("no JSON object in the answer")
    obj, _ = json.JSONDecoder().raw_decode(s[start:])
    return obj
