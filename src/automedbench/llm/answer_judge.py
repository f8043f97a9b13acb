"""The LLM answer judge: a scoring-context service a track's metric may call (ScoringContext).

    judge = LLMAnswerJudge(config)            # any OpenAI-compatible endpoint (agent registry)
    judge("Is there a nodule?", "yes", "a small nodule is present")  ->  1.0 / 0.5 / 0.0 / None
    judge(q, ref, pred, instructions=JudgeInstructions(text, "my-track-1"))   # a track's own prompt

It grades one predicted answer against the reference: 1 = same meaning, 0.5 = partly right,
0 = wrong. It never sees the agent, the run or other answers. The grading instructions (the
system prompt) are generic unless the calling track passes its own. Verdicts are cached on disk
(same model + instructions version + question + reference + prediction → same verdict, no
second paid call). When it cannot judge (provider down after retries, unparseable reply) it
returns None — a track records that answer's judged score as null, never 0 (docs/scoring.md#agentic-score-and-the-null-policy).
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cache import JudgeCache, sha256_text
from .client import ChatClient, ProviderError
from .json_reply import extract_json
from .registry import get_agent_config

log = logging.getLogger(__name__)
ALLOWED = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class JudgeInstructions:
    """The judge's system prompt and its version. The version is part of every verdict's cache
    key: give each distinct text its own version (and bump it when the text changes)."""

    text: str
    version: str


DEFAULT_INSTRUCTIONS = JudgeInstructions(
    text=("You grade answers to questions. Compare the PREDICTED answer to the REFERENCE answer "
          "for the QUESTION. Reply with JSON only: {\"score\": 1} when they mean the same, "
          "{\"score\": 0.5} when the prediction is partly right, {\"score\": 0} otherwise. Judge "
          "meaning, not wording."),
    version="answer-judge-generic-1")
_NUMBER = re.compile(r"\"score\"\s*:\s*\"?(0(?:\.5|\.0)?|1(?:\.0)?)\"?")


def parse_score(text: str) -> float | None:
    """The verdict in a reply: JSON {"score": v} with v in {0, 0.5, 1} (the whole reply, a
    fenced block or the first object in it: json_reply.extract_json), else a `"score": v` found
    in the text, else None."""
    text = (text or "").strip()
    try:
        obj = extract_json(text)
        value = float(obj["score"]) if isinstance(obj, dict) else None
    except (ValueError, KeyError, TypeError):
        m = _NUMBER.search(text)
        value = float(m.group(1)) if m else None
    return value if value in ALLOWED else None


class LLMAnswerJudge:
    def __init__(self, config: Any, *, cache_dir: Path | str | None = None, retries: int = 1):
        self.config = config
        self.model = config.model
        self.client = ChatClient(config)
        self.cache = JudgeCache(Path(cache_dir) if cache_dir else None)
        self.retries = retries
        self.calls = 0
        self.failures = 0

    def __call__(self, question: str, reference: str, prediction: str, *,
                 instructions: JudgeInstructions = DEFAULT_INSTRUCTIONS) -> float | None:
        key = sha256_text(json.dumps([instructions.version, self.model, question, reference, prediction]))
        hit = self.cache.get(key)
        if hit is not None and hit.get("score") in ALLOWED:
            return float(hit["score"])
        user = f"QUESTION: {question}\nREFERENCE: {reference}\nPREDICTED: {prediction}"
        for _ in range(self.retries + 1):
            self.calls += 1
            try:
                reply = self.client.complete([{"role": "system", "content": instructions.text},
                                              {"role": "user", "content": user}],
                                             temperature=0.0, max_tokens=20)
            except ProviderError as exc:
                log.warning("answer judge %s unavailable: %s", self.model, exc.message)
                self.failures += 1
                return None
            score = parse_score(str(reply.message.get("content") or ""))
            if score is not None:
                self.cache.put(key, {"score": score, "model": self.model, "prompt_version": instructions.version})
                return score
        self.failures += 1
        return None


def get_answer_judge(name: str | None, agent_configs: list[Path] | None = None,
                     cache_dir: Path | str | None = None) -> LLMAnswerJudge | None:
    """The answer judge named in the agent registry, or None. Raises a user error for an
    unknown name or an unset environment variable (API key, header), before any paid call."""
    if not name:
        return None
    config = get_agent_config(name, agent_configs)
    config.check_ready(role="answer judge")  # an unset key or header variable: a user error, now
    return LLMAnswerJudge(config, cache_dir=cache_dir)
