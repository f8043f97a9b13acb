"""LLM judge for S1..S3 over any OpenAI-compatible endpoint (an `AgentConfig` entry): what it
sees, its JSON output contract, retries and the cache are in docs/llm.md "3. The LLM judge"."""
from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any, Callable

from ...llm.cache import JudgeCache, sha256_text
from ...llm.client import ChatClient, ProviderError
from ...llm.json_reply import extract_json
from ...llm.registry import AgentConfig
from ...run_files import WorkspaceNames
from ...runs.models import ItemEvidence, StageResult
from ..rubric import Rubric, StageRubric, load_rubric
from .base import JudgeBase, JudgeEvidence
from .bounds import bound
from .cache import cache_key, plan_hash
from .digest import build_digest

PROMPT_VERSION = "llm-4"   # 2: not-applicable items left out (were auto-passed); 3: cited evidence;
                           # 4: a one-line reason per item, stored with its checked citation
PLAN_MD_CHARS = 12000
PLAN_PNG_MAX_BYTES = 8 * 1024 * 1024

PLAN_MD, PLAN_PNG = WorkspaceNames.PLAN_MD, WorkspaceNames.PLAN_PNG   # the plan files it shows and accepts

SYSTEM = f"""You are a strict, fair reviewer of an autonomous AI coding agent that worked alone in a sandbox on a medical-AI research task. You grade HOW it worked (the research workflow), stage by stage, using only the evidence given: the task brief, the agent's saved plan artifacts and a digest of its execution trace. You are NOT told how good its final outputs are; do not guess or reward outcomes, grade the process.

Stage attribution in the digest comes from the agent's own tags (like [S3]) and is NOT evidence; neither is a printed claim. The evidence is what each call did: its exit code, its output, and its effects (files written and read, observed by the sandbox, shown as "effects" lines). A criterion passes (1) only if the evidence shows it; 0 otherwise.

For every item you credit (a value above 0) cite the evidence it rests on under "evidence": the call numbers (#N in the digest), the files (paths exactly as in the effects lines, or {PLAN_MD}, {PLAN_PNG}) and a one-line reason ("why"); for an item you fail, say in "why" what was absent. Citations are checked against the trace: a call that does not exist, or a file that is not in the cited calls' effects, is rejected. Reply with one JSON object only, no prose around it."""


def _fmt_value(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


class LLMJudge(JudgeBase):
    backend = "llm"
    version = PROMPT_VERSION

    def __init__(self, config: AgentConfig, *, cache_dir: Path | str | None = None, use_cache: bool = True,
                 retries: int = 2, digest_budget: int = 24000, rubric: Rubric | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.name = config.name
        self.model = config.model
        self.retries = retries
        self.digest_budget = digest_budget
        self.rubric = rubric or load_rubric()
        self.cache = JudgeCache(cache_dir) if use_cache else None
        self._sleep = sleep
        self._schema_ok: bool | None = None      # None = not tried yet
        self.last_cache_hit = False
        self.last_errors: list[str] = []
        self.last_citations: dict[str, Any] = {}     # stage -> the accepted (checked) "evidence" object

    # ---- public -------------------------------------------------------------------------
    def check_ready(self) -> None:
        """Every key/header variable of the judge's endpoint is set (LLMConfigError names each unset one)."""
        self.config.check_ready(role="judge")

    def judge(self, evidence: JudgeEvidence) -> dict[str, StageResult | None]:
        rubric = self.rubric
        stages = rubric.judged
        ask = {s: rubric.stages[s].applicable(evidence.tier) for s in stages}
        digest = build_digest(evidence.trace, self.digest_budget)
        workspace = Path(evidence.workspace)
        key = cache_key(rubric_version=rubric.version, judge_model=self.model, digest_hash=sha256_text(digest),
                        plan_hash=plan_hash(workspace), prompt=PROMPT_VERSION, tier=evidence.tier,
                        task=sha256_text(self._brief(evidence)), vision=self.config.vision,
                        base_url=self.config.base_url)
        self.last_cache_hit = False
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit and set(hit.get("stages", {})) == set(stages):
                self.last_cache_hit = True
                return bound({s: StageResult.model_validate(v) for s, v in hit["stages"].items()}, evidence, rubric)
        checker = CitationChecker(evidence)
        answers = self._ask(self._messages(evidence, digest, ask), ask, checker) if any(ask.values()) else {}
        out: dict[str, StageResult | None] = {}
        for s in stages:
            srub = rubric.stages[s]
            na = srub.not_applicable_in(evidence.tier)
            got = answers.get(s)
            if got is None:
                out[s] = None
                continue
            items = {i: got[0][i] for i in ask[s]}
            rationale = got[1] + (f" (not applicable in tier {evidence.tier}, left out: {', '.join(na)})" if na else "")
            out[s] = StageResult(score=srub.score(items), items=items, rationale=rationale,
                                 evidence=item_evidence(self.last_citations.get(s), items))
        answered = {s: v for s, v in out.items() if v is not None}
        if self.cache is not None and len(answered) == len(out):   # only complete verdicts are cached
            self.cache.put(key, {"stages": {s: v.model_dump() for s, v in answered.items()},
                                 "judge": {"name": self.name, "model": self.model, "version": PROMPT_VERSION},
                                 "rubric_version": rubric.version})
        # the model's verdict as asked is cached; the facts' ceilings apply on every read of it
        return bound(out, evidence, rubric)

    # ---- prompt -------------------------------------------------------------------------
    def _brief(self, ev: JudgeEvidence) -> str:
        task = ev.task
        lines = [f"Task: {task.title} (id {task.id}, track {task.track})", f"Tier: {ev.tier}",
                 f"Goal: {task.description.strip()}",
                 f"Inputs per case: {', '.join(task.input_files)}; outputs per case: {', '.join(task.output_files)}"]
        tier_info = task.tiers.model_dump().get(ev.tier)
        if tier_info is not None:
            lines.append(f"Tier information given to the agent: {json.dumps(tier_info)}")
        return "\n".join(lines)

    def _rubric_text(self, ask: dict[str, list[str]], tier: str, wording: dict[str, str] | None = None) -> str:
        """The rubric items to grade, with the track's wording appended (TrackWording.rubric)."""
        wording = wording or {}
        out = []
        for s, ids in ask.items():
            r: StageRubric = self.rubric.stages[s]
            values = "/".join(_fmt_value(v) for v in r.allowed_values())
            out.append(f"{s} {r.name} ({'one ladder value' if r.kind == 'ladder' else 'binary items'}, allowed {values}):")
            out += [f"  {i}: {r.items[i]}" + (f" — {wording[i]}" if i in wording else "") for i in ids]
            na = r.not_applicable_in(tier)
            if na:
                out.append(f"  (not asked: not applicable in tier {tier}: {', '.join(na)})")
        return "\n".join(out)

    def _example(self, ask: dict[str, list[str]]) -> str:
        """The answer's shape with value placeholders (not example values: no anchoring)."""
        lines = []
        for s, ids in ask.items():
            vals = "|".join(_fmt_value(v) for v in self.rubric.stages[s].allowed_values())
            items = ", ".join(f'"{i}": {vals}' for i in ids)
            cites = ", ".join(f'"{i}": {{"calls": [<call numbers>], "files": [<paths>], "why": "<one line>"}}'
                              for i in ids)
            lines.append(f' "{s}": {{"items": {{{items}}}, "evidence": {{{cites}}}, '
                         '"rationale": "<one to three sentences citing the evidence>"}')
        return "{\n" + ",\n".join(lines) + "\n}\n(where 0|1 means: exactly one of these numbers)"

    def _messages(self, ev: JudgeEvidence, digest: str, ask: dict[str, list[str]]) -> list[dict[str, Any]]:
        ask = {s: ids for s, ids in ask.items() if ids}      # a stage with nothing to ask is not shown
        ws = Path(ev.workspace)
        md, png = ws / PLAN_MD, ws / PLAN_PNG
        plan_text = md.read_text(errors="replace") if md.is_file() else None
        if plan_text is not None and len(plan_text) > PLAN_MD_CHARS:
            plan_text = plan_text[: PLAN_MD_CHARS] + f"\n[... {len(plan_text) - PLAN_MD_CHARS} more characters not shown]"
        head = "\n\n".join([
            "## Task brief\n" + self._brief(ev),
            "## Rubric (grade exactly these item ids)\n" + self._rubric_text(ask, ev.tier, ev.task.track_impl.wording.rubric),
            f"## {PLAN_MD}\n" + (plan_text if plan_text is not None else f"({PLAN_MD} does not exist)"),
        ])
        parts: list[dict[str, Any]] = [{"type": "text", "text": head}]
        if png.is_file():
            size = png.stat().st_size
            if self.config.vision and size <= PLAN_PNG_MAX_BYTES:
                parts.append({"type": "text", "text": f"## {PLAN_PNG} (image below)"})
                data = base64.b64encode(png.read_bytes()).decode()
                parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
            elif self.config.vision:
                parts.append({"type": "text", "text": f"## {PLAN_PNG}\n{png.name} exists ({size} bytes) but is too large to show"})
            else:
                parts.append({"type": "text", "text": f"## {PLAN_PNG}\n{png.name} exists but cannot be viewed by this judge"})
        else:
            parts.append({"type": "text", "text": f"## {PLAN_PNG}\n({PLAN_PNG} does not exist)"})
        parts.append({"type": "text", "text": "## Trajectory digest\n" + digest})
        parts.append({"type": "text", "text": "## Answer\nReply with JSON only, exactly in this shape "
                      "(values must be among the allowed values):\n" + self._example(ask)})
        content: Any = parts if any(p["type"] == "image_url" for p in parts) else \
            "\n\n".join(p["text"] for p in parts)
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]

    def response_format(self, ask: dict[str, list[str]]) -> dict[str, Any]:
        props = {}
        for s, ids in ask.items():
            allowed = [int(v) if float(v).is_integer() else v for v in self.rubric.stages[s].allowed_values()]
            cite = {"type": "object", "additionalProperties": False, "required": ["calls", "files", "why"],
                    "properties": {"calls": {"type": "array", "items": {"type": "integer"}},
                                   "files": {"type": "array", "items": {"type": "string"}},
                                   "why": {"type": "string"}}}
            props[s] = {"type": "object", "additionalProperties": False, "required": ["items", "evidence", "rationale"],
                        "properties": {
                            "items": {"type": "object", "additionalProperties": False, "required": list(ids),
                                      "properties": {i: {"type": "number", "enum": allowed} for i in ids}},
                            "evidence": {"type": "object", "additionalProperties": False, "required": list(ids),
                                         "properties": {i: cite for i in ids}},
                            "rationale": {"type": "string"}}}
        return {"type": "json_schema", "json_schema": {
            "name": "automedbench_judge", "strict": True,
            "schema": {"type": "object", "additionalProperties": False, "required": list(props), "properties": props}}}

    # ---- ask + validate -------------------------------------------------------------------
    def _ask(self, messages: list[dict[str, Any]], ask: dict[str, list[str]],
             checker: CitationChecker | None = None) -> dict[str, tuple[dict, str]]:
        client = ChatClient(self.config, sleep=self._sleep)
        valid: dict[str, tuple[dict, str]] = {}
        cite_asks: dict[str, int] = {}      # stages re-asked for bad citations (once each)
        given_up: set[str] = set()          # stages whose citations stayed bad: null, never a pass
        self.last_errors = []
        self.last_citations = {}
        messages = list(messages)
        try:
            attempt = 0
            while attempt <= self.retries:
                missing = {s: ids for s, ids in ask.items() if ids and s not in valid and s not in given_up}
                if not missing:
                    break
                rf = self.response_format(missing) if self._schema_ok is not False else None
                try:
                    reply = client.complete(messages, response_format=rf, temperature=0.0)
                except ProviderError as exc:
                    if rf is not None and exc.status in (400, 422):
                        self._schema_ok = False          # fall back to plain prompting, same attempt
                        self.last_errors.append(f"response_format rejected ({exc.status}); plain prompting")
                        continue
                    self.last_errors.append(f"provider: {exc.reason}: {exc.message}")
                    break                                # infrastructure: remaining stages None
                if rf is not None:
                    self._schema_ok = True
                attempt += 1
                content = reply.message.get("content") or ""
                if isinstance(content, list):
                    content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
                obj, problems = parse_verdict(content, missing, self.rubric)
                for s, v in obj.items():
                    cited = _evidence_of(content, s)
                    bad = checker.check(s, v[0], cited) if checker is not None else []
                    if not bad:
                        valid[s] = v
                        self.last_citations[s] = cited
                        continue
                    if cite_asks.get(s, 0) >= 1:    # re-asked once already: the stage is not judged
                        given_up.add(s)
                        self.last_errors.append(f"{s}: citations still invalid after a re-ask: {bad[0]}")
                        continue
                    cite_asks[s] = cite_asks.get(s, 0) + 1
                    problems += [f"{s}: {b}" for b in bad]
                if problems:
                    self.last_errors += problems
                    messages += [{"role": "assistant", "content": content},
                                 {"role": "user", "content": "Your answer was not valid:\n- " + "\n- ".join(problems)
                                  + "\nReply again with the complete JSON object only, exactly the item ids "
                                  + "asked, values among the allowed values."}]
        finally:
            client.close()
        return valid


def item_evidence(cited: Any, items: dict[str, float]) -> dict[str, ItemEvidence]:
    """The checked citations of one stage as the record's per-item evidence (docs/judge.md#item-evidence).
    Called only with citations CitationChecker accepted; an item without one gets an empty entry."""
    cited = cited if isinstance(cited, dict) else {}
    out = {}
    for item in items:
        c = cited.get(item)
        c = c if isinstance(c, dict) else {}
        calls = [x for x in c.get("calls") or [] if isinstance(x, int) and not isinstance(x, bool)]
        files = [x for x in c.get("files") or [] if isinstance(x, str)]
        why = c.get("why")
        out[item] = ItemEvidence(calls=calls, files=files, why=why.strip() if isinstance(why, str) else "")
    return out


def _evidence_of(content: str, stage: str) -> Any:
    try:
        obj = extract_json(content)
    except (ValueError, json.JSONDecodeError):
        return None
    st = obj.get(stage) if isinstance(obj, dict) else None
    return st.get("evidence") if isinstance(st, dict) else None


class CitationChecker:
    """Checks a verdict's citations against the run (docs/judge.md "LLM judge: every credit cites its evidence")."""

    PLAN_FILES = WorkspaceNames.PLAN_FILES

    def __init__(self, evidence: JudgeEvidence):
        self.calls: dict[int, set[str]] = {}
        for ev in evidence.trace:
            if ev.type == "execution" and ev.call_index is not None:
                files = self.calls.setdefault(ev.call_index, set())
                if ev.effects is not None:
                    files |= {w.path for w in ev.effects.written} | set(ev.effects.read)
        self.plan = {p for p in self.PLAN_FILES if (Path(evidence.workspace) / p).is_file()}

    def _plan_file(self, path: str) -> bool:
        return path.removeprefix("/workspace/") in self.plan

    def check(self, stage: str, items: dict[str, float], evidence: Any) -> list[str]:
        problems = []
        evidence = evidence if isinstance(evidence, dict) else {}
        for item, value in items.items():
            cite = evidence.get(item)
            cite = cite if isinstance(cite, dict) else {}
            calls, files = cite.get("calls") or [], cite.get("files") or []
            if not isinstance(calls, list) or not isinstance(files, list):
                problems.append(f"{item}: evidence must be {{\"calls\": [numbers], \"files\": [paths]}}")
                continue
            if value > 0 and not calls and not files:
                problems.append(f"{item}: credited {_fmt_value(value)} without citing a call or a file")
                continue
            unknown = [c for c in calls if not isinstance(c, int) or c not in self.calls]
            if unknown:
                problems.append(f"{item}: cites call(s) {unknown} that do not exist in the trace")
                continue
            seen = set().union(*(self.calls[c] for c in calls)) if calls else set().union(*self.calls.values())
            wrong = [f for f in files if not (isinstance(f, str) and (f in seen or self._plan_file(f)))]
            if wrong:
                where = f"call(s) {calls}" if calls else "any call"
                problems.append(f"{item}: file(s) {wrong} are not in the effects of {where}")
        return problems


def parse_verdict(text: str, ask: dict[str, list[str]], rubric: Rubric) -> tuple[dict[str, tuple[dict, str]], list[str]]:
    """Validate a judge answer: ({stage: (items, rationale)} for the valid stages, [problems]); a stage
    is valid only with exactly the asked ids, allowed values and a rationale string."""
    try:
        obj = extract_json(text)
    except (ValueError, json.JSONDecodeError) as exc:
        return {}, [f"the answer is not a JSON object ({exc})"]
    if not isinstance(obj, dict):
        return {}, ["the answer must be a JSON object keyed by stage id"]
    good: dict[str, tuple[dict, str]] = {}
    problems: list[str] = []
    for s, ids in ask.items():
        if not ids:
            continue
        st = obj.get(s)
        if not isinstance(st, dict):
            problems.append(f"{s}: missing (expected {{\"items\": {{...}}, \"rationale\": \"...\"}})")
            continue
        items, rationale = st.get("items"), st.get("rationale")
        allowed = rubric.stages[s].allowed_values()
        not_asked = set(rubric.stages[s].items) - set(ids)   # tolerated if answered anyway, then ignored
        bad = []
        if not isinstance(items, dict):
            bad.append("'items' must be an object")
        else:
            keys = set(items) - not_asked
            if keys != set(ids):
                miss, extra = sorted(set(ids) - keys), sorted(keys - set(ids))
                bad.append(f"item ids must be exactly {ids}" + (f"; missing {miss}" if miss else "")
                           + (f"; unexpected {extra}" if extra else ""))
            for i in ids:
                v = items.get(i)
                if i in items and (isinstance(v, bool) or not isinstance(v, (int, float))
                                   or not any(abs(float(v) - a) < 1e-9 for a in allowed)):
                    bad.append(f"{i}: {v!r} is not one of {[_fmt_value(a) for a in allowed]}")
        if not isinstance(rationale, str):
            bad.append("'rationale' must be a string")
        if bad:
            problems += [f"{s}: {b}" for b in bad]
        elif isinstance(items, dict) and isinstance(rationale, str):  # always so when nothing is bad
            good[s] = ({i: float(items[i]) for i in ids}, rationale.strip())
    return good, problems
