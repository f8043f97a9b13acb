"""Reading and validating one report.txt, and extracting its findings section.

Strict and never raising: every refusal is a one-line reason (an empty report, binary garbage,
a file over the size limit, a symlink are each that study's 0, never a crash).
"""
from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ... import yamlfile
from ...metrics.bleu import ngram_counts
from ...metrics.text_tokens import has_words, tokenize
from ..safety import safe_output_file


@lru_cache(maxsize=1)
def rules() -> dict[str, Any]:
    return yamlfile.safe_load(Path(__file__).with_name("rules.yaml").read_text())


@lru_cache(maxsize=1)
def _header_regex() -> re.Pattern:
    headers = rules()["section_headers"]
    names = sorted({*headers["findings"], *headers["other"]}, key=len, reverse=True)
    alt = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names)
    # a header opens a line: "FINDINGS:" / "Findings" alone on its line / "IMPRESSION :"
    return re.compile(rf"^[ \t]*({alt})[ \t]*(?::|$)", re.IGNORECASE | re.MULTILINE)


def extract_findings(text: str) -> tuple[str, bool]:
    """(findings section, found). Case-insensitive headers; the section runs to the next
    recognised header. Without a findings header the whole text is returned (found=False)."""
    findings = {h.lower() for h in rules()["section_headers"]["findings"]}
    heads = list(_header_regex().finditer(text))
    for k, m in enumerate(heads):
        if re.sub(r"\s+", " ", m.group(1).lower()) in findings:
            end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
            return text[m.end():end].strip(), True
    return text.strip(), False


@dataclass
class Report:
    """One report, ready to score: its scored section tokenised once, n-grams counted once."""

    text: str
    section: str
    section_found: bool
    tokens: list[str]
    counts: list = field(repr=False, default_factory=list)
    placeholder: str = ""          # non-empty: the placeholder text this report consists of

    @classmethod
    def from_text(cls, text: str, section: str = "findings") -> Report:
        scored, found = extract_findings(text) if section == "findings" else (text.strip(), False)
        tokens = tokenize(scored)
        return cls(text, scored, found, tokens, ngram_counts(tokens), _placeholder(text))


@lru_cache(maxsize=1)
def _placeholder_rules() -> tuple[dict[int, int], frozenset[str]]:
    """(punctuation -> space translation table, the placeholder texts), built once."""
    return (str.maketrans(string.punctuation, " " * len(string.punctuation)),
            frozenset(rules()["placeholders"]))


def _placeholder(text: str) -> str:
    table, placeholders = _placeholder_rules()
    squashed = " ".join(text.lower().translate(table).split())
    return text.strip() if squashed in placeholders else ""


def _decode(data: bytes) -> tuple[str | None, str]:
    nul = data.find(b"\x00")
    if nul >= 0:
        return None, f"binary data (NUL byte at offset {nul}), not UTF-8 text"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    controls = sum(1 for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r\f\v")
    if controls > max(2, len(text) // 100):
        return None, f"{controls} control characters: binary data, not a text report"
    return text, ""


def read_report(case_dir: Path, name: str, max_bytes: int) -> tuple[str | None, str]:
    """The text of outputs/<case>/<name>, or (None, one-line reason). Never raises."""
    path, reason = safe_output_file(case_dir, name)
    if path is None:
        return None, reason
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        return None, f"{name}: cannot read: {exc.strerror}"
    if len(data) > max_bytes:
        return None, f"{name}: larger than the {max_bytes // 1024} KiB limit for one report (refused unread)"
    text, reason = _decode(data)
    if text is None:
        return None, f"{name}: {reason}"
    if not text.strip():
        return None, f"{name}: empty report"
    if not has_words(text):
        return None, f"{name}: no words (only punctuation or symbols)"
    return text, ""
