"""Facts about the plan's content: copied from the prompt, steps, methods named and judged
(docs/judge.md "S1 Plan": "Copied from the prompt", "Methods named", "Judgements differ")."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...tracks.content_facts import NOT_METHOD_NAMES

SHINGLE = 5
COPIED_SHARE = 0.5
MIN_METHODS = 3
MIN_JUDGED = 2        # methods that carry a verdict or a reason: "compared", not only listed
# words that make a line about a method a judgement of it (a verdict, a reason, a trade-off)
_VERDICT = re.compile(r"\b(?:chose|chosen|choose|choosing|pick(?:ed)?|select(?:ed)?|reject(?:ed)?|skip(?:ped)?|"
                      r"discard(?:ed)?|because|since|needs?|requires?|required|cannot|can't|won't|no|not|too|"
                      r"fails?|failed|better|worse|best|simpler|simple|robust|accurate|accuracy|offline|"
                      r"unavailable|available|works?|fits?|suits?|pros?|cons?|trade-?off|verdict|use[ds]?|"
                      r"instead|unlike|whereas|but|overkill|heavy|lightweight|gpu|download|internet|training|"
                      r"trained|untrained|yes|considered|consider|tried|tested)\b|[✓✗✔✘]", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9][a-z0-9\-+.]*")
_SPLIT = re.compile(r"\s*(?:[,;:/()+]|\bor\b|\band\b|\bwith\b|\bvia\b|\bfor\b|\be\.g\.|\bi\.e\.)\s*", re.IGNORECASE)
# phrases cut from candidate strings that name no method
_GENERIC = re.compile(r"^(?:public|pretrained|pre-trained|the|a|an|its|their|model|models|weights|baseline|"
                      r"methods?|classical|approach|pipelines?|style|based|family|networks?|detectors?|"
                      r"instruct|zero-shot|per|question|type|answer|set|known|over|using|in-plane|detail|"
                      r"[a-z]+ weights|\d+(?:\.\d+)?|[\d\-/]+d)$", re.IGNORECASE)
# a token shaped like a method name: internal capitals, or letters and digits, or CAPS-CAPS
_METHOD_TOKEN = re.compile(r"(?<![\w-])(?:[A-Za-z]*[a-z][A-Z][\w\-]*|[A-Za-z]+-?\d[\w\-.]*|[A-Z]{2,}-[A-Za-z\d]+"
                           r"|[a-z]+[A-Z]-?[A-Za-z]+)(?![\w-])")
# a file's name has a method's shape ("t1.nii.gz", "case_001.npy") and names no method
_FILE_NAME = re.compile(r"\w\.(?:nii|gz|npy|npz|png|jpe?g|json|csv|txt|md|py|ya?ml|dcm|mha|nrrd|h5|pt|pth)\b")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _shingles(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + SHINGLE]) for i in range(max(0, len(words) - SHINGLE + 1))}


def prompt_shingles(texts: Iterable[str]) -> set[tuple[str, ...]]:
    return {s for text in texts for s in _shingles(_words(text))}


def copied_share(plan: str, prompt_texts: Iterable[str], known: set[tuple[str, ...]] | None = None) -> float:
    """The share of the plan's 5-word shingles found in the prompt's texts (and in `known`,
    shingles computed before); 0 for a plan shorter than one shingle."""
    own = _shingles(_words(plan))
    if not own:
        return 0.0
    prompt = prompt_shingles(prompt_texts) | (known or set())
    return len(own & prompt) / len(own)


def task_texts(value: Any) -> list[str]:
    """Every string in a task snapshot (nested dicts and lists): what its prompt is made of."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (dict, list, tuple)):
        return [s for v in (value.values() if isinstance(value, dict) else value) for s in task_texts(v)]
    return []


# well-known method names (docs/judge.md "S1 Plan"): a part of a tier's model description that
# holds one of them names a method; its other parts ("in numpy", "per study") name none
WELL_KNOWN = re.compile(
    r"threshold|otsu|connected component|morpholog|k-means|kmeans|total.variation|non-local means|bm3d|"
    r"gaussian|median filter|bilateral|anisotropic diffusion|top-hat|watershed|region growing|spline|"
    r"interpolation|back-projection|nearest.neighbou?r|svm|random forest|logistic regression|u-?net|yolo|"
    r"resnet|densenet|efficientnet|\bvit\b|\bclip\b|llava|qwen|plip|difference-of-gaussians|z-score|wiener|"
    r"chambolle|hole filling|canny|hough|template matching|rule-based|bias correction|bulk assignment|"
    r"denois|up-sampling|classifier|detector|segment", re.IGNORECASE)


def model_method_names(model: str) -> list[str]:
    """The method names in a tier's model description: its first part (the method's own name)
    and the parts that hold a well-known method name."""
    names = candidate_names(model)
    return names[:1] + [n for n in names[1:] if WELL_KNOWN.search(n)]


def candidate_names(candidate: str) -> list[str]:
    """The method names in one candidate string, lower-cased."""
    names = []
    for part in _SPLIT.split(candidate):
        part = part.strip(" .-").lower()
        words = part.split()
        if len(part) >= 3 and len(words) <= 4 and not _GENERIC.match(part):
            # a multi-word name stays a phrase; its words alone are too common to match
            names.append(part)
    return names


# words that say nothing about which method a candidate is
_PLAIN = {"the", "and", "for", "with", "over", "from", "into", "per", "via", "using", "based", "model", "models",
          "method", "methods", "public", "weights", "pretrained", "pre-trained", "classical", "approach",
          "pipeline", "pipelines", "style", "family", "network", "networks", "image", "images", "data", "task",
          "set", "type", "question", "answer", "known", "each", "case", "cases", "output", "outputs", "input",
          "inputs", "run", "runs", "label", "labels"}


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9\-]+", text.lower()) if len(w) >= 3 and w not in _PLAIN}


def _described(candidate: str, lines: list[set[str]]) -> bool:
    """A candidate described in other words: one plan line holds two of its content words (its
    only one, for a one-word candidate)."""
    words = _content_words(candidate)
    need = min(2, len(words))
    return need > 0 and any(len(words & line) >= need for line in lines)


def _normalised(text: str) -> str:
    """Lower-cased, hyphens as spaces, one space between words: "Total-variation" and "total
    variation" are one name."""
    return " ".join(text.lower().replace("-", " ").split())


def _present(name: str, low: str) -> bool:
    """`name` in the normalised plan `low`, its last word also in the plural ("connected
    component" / "components")."""
    name = _normalised(name)
    if len(name) > 4 and name.endswith("s") and not name.endswith("ss"):
        name = name.removesuffix("es" if name.endswith(("ches", "shes", "xes", "ses")) else "s")
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?:e?s)?(?![\w])", low) is not None


# a cell or phrase that only marks the pick (a "chosen" column), judging nothing by itself
_MARK = re.compile(r"^(?:yes|no|y|n|x|-+|[✓✗✔✘☑☐*]|chosen|selected|picked|rejected|\s)*$", re.IGNORECASE)


def _judgement(text: str) -> str:
    """What a line says of a method beyond its name and a pick mark, normalised: the same words
    said of every candidate compare nothing."""
    return " ".join(_words(text))


def methods_judged(plan: str, methods: list[str]) -> list[str]:
    """The named methods the plan judges, when two judgements differ (docs/judge.md "Judgements differ")."""
    judged: dict[str, str] = {}
    # prose is read a sentence at a time: one paragraph may judge every candidate in turn
    lines = [part for line in list_items(plan)
             for part in ([line] if "|" in line else _SENTENCE.split(line))]
    for line in lines:
        low = line.lower()
        named = [m for m in methods if m and m in low and m not in judged]
        if not named:
            continue
        if "|" in low:    # a table row: another cell holds something (a verdict column)
            cells = [c.strip() for c in low.strip().strip("|").split("|")]
            said = [c for c in cells if c and not c.strip("-: ") == "" and not any(m in c for m in named)]
            if said:
                judgement = _judgement(" ".join(c for c in said if not _MARK.match(c)))
                judged.update({m: judgement for m in named})
            continue
        rest = low
        for m in named:
            rest = rest.replace(m, " ")
        if _VERDICT.search(rest):
            # each method's judgement is what follows its name, up to the next one's: only a span that
            # itself holds a verdict judges its method (docs/judge.md "Judgements differ")
            at = sorted((low.find(m), m) for m in named)
            for k, (pos, m) in enumerate(at):
                end = at[k + 1][0] if k + 1 < len(at) else len(low)
                span = low[pos + len(m):end]
                if len(at) == 1 or _VERDICT.search(span):
                    judged[m] = _judgement(_MARK_WORDS.sub(" ", span))
    distinct = set(judged.values())
    return list(judged) if len(distinct) >= 2 else []


_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")


def list_items(plan: str) -> list[str]:
    """The plan's lines, each list item with its indented lines joined onto it (docs/judge.md "S1 Plan")."""
    out: list[str] = []
    parent_indent: int | None = None        # the indent of the open list item's marker
    for line in plan.splitlines():
        indent = len(line) - len(line.lstrip())
        if parent_indent is not None and line.strip() and indent > parent_indent and out:
            out[-1] += " " + _BULLET.sub("", line).strip()
            continue
        bullet = _BULLET.match(line)
        parent_indent = len(bullet.group(1)) if bullet else None
        out.append(line)
    return out


_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\-*])")
# classical methods named in plain words, outside any task's list (docs/judge.md "Methods named"):
# a plan that names one names a method, whatever its shape ("median filter", not "MedFilt")
PLAIN_METHODS = re.compile(
    r"\b(?:median|gaussian|mean|box|bilateral|wiener|guided|sobel|laplacian|high-?pass|low-?pass) "
    r"(?:filter(?:ing)?|blur(?:ring)?|smoothing)\b|\bunsharp mask(?:ing)?\b|\bnon-?local means\b|"
    r"\btotal[- ]variation\b|\banisotropic diffusion\b|\bhistogram equali[sz]ation\b|\botsu\b|"
    r"\bwatershed\b|\bregion growing\b|\bk-?means\b|\brandom forest\b|\blogistic regression\b|"
    r"\bsupport vector machine\b|\bnearest[- ]neighbou?r\b|\bnaive bayes\b|\bgradient boosting\b|"
    r"\bconnected components?\b|\btop-?hat\b|\bcanny\b|\bhough transform\b|\btemplate matching\b|"
    r"\b(?:bicubic|bilinear|lanczos|spline) (?:interpolation|up-?sampling)\b|\bback-?projection\b|"
    r"\bactive contours?\b|\blevel sets?\b|\bgraph cuts?\b|\bprincipal component analysis\b",
    re.IGNORECASE)

# pick marks inside prose ("BM3D: chosen ✓"), dropped before judgements are compared
_MARK_WORDS = re.compile(r"[✓✗✔✘☑☐]|\b(?:chosen|selected|picked)\b", re.IGNORECASE)


def methods_named(plan: str, candidates: list[str]) -> list[str]:
    """The distinct methods the plan names: task candidates (by any of their names) and other
    method-shaped names."""
    low = _normalised(plan)
    lines = [_content_words(line) for line in plan.splitlines()]
    found: list[str] = []
    covered: set[str] = set()
    for cand in candidates:
        names = candidate_names(cand)
        hit = [n for n in names if _present(n, low)] or ([cand.lower()] if _described(cand, lines) else [])
        if hit:
            found.append(hit[0])
            covered |= {*names, cand.lower()}
    # one plain name however spelt: "Total-variation" is "total variation", "components" "component"
    plain = [re.sub(r"[-\s]+", " ", m.group(0)).removesuffix("s") for m in PLAIN_METHODS.finditer(plan)]
    for token in dict.fromkeys([*_METHOD_TOKEN.findall(plan), *plain]):
        key = token.lower().strip(".-")
        if key in NOT_METHOD_NAMES or _FILE_NAME.search(key) or any(key in c or c in key for c in covered):
            continue
        found.append(key)
        covered.add(key)
    return found


# ---- step lines: a pipeline step says what to run, not which rubric box it ticks ----------

STEP_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*+]|\|)\s+\S.*$", re.MULTILINE)
ECHO_SHARE = 0.8     # at least this share of a step line's words in the rubric's wording: an echo
# something a step can be executed on: a file name with a suffix, a path (/data, ./x, outputs/;
# not "shape/values"), an identifier with an underscore or letters and digits (case_000, x1), a
# call `f(`, a flag `--x`
_CONCRETE = re.compile(r"\w\.[a-z]{2,}\b|(?<![\w/])\.{0,2}/\w|\w/(?![\w/])|\b[a-z]+_\w+|\b[a-z]+\d\w*|\w\(|"
                       r"(?<!\w)--?[a-z]", re.IGNORECASE)
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")
_STOP = {"the", "and", "for", "with", "its", "all", "any", "each", "every", "then", "than", "from", "into", "one",
         "not", "without", "least", "merely", "only", "that", "this", "are", "was", "were", "has", "have"}


def _stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def stem_words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 3 and w not in _STOP}


def step_lines(plan: str, rubric_words: set[str], methods: list[str]) -> list[str]:
    """The plan's step lines that are not an echo of the rubric (docs/judge.md "An echo of the rubric is no step")."""
    kept = []
    for line in STEP_LINE.findall(plan):
        low = line.lower()
        words = stem_words(line)
        concrete = bool(_CONCRETE.search(line)) or any(m and m in low for m in methods)
        if concrete or len(words) < 2 or len(words & rubric_words) / len(words) < ECHO_SHARE:
            kept.append(line)
    return kept


# operations a pipeline step performs (a step that names one says what to do: "load the data");
# "understand", "implement it", "make sure it works" name none
OPERATIONS = re.compile(r"\b(?:load|read|open|run|apply|threshold|segment|detect|classify|denoise|filter|smooth|"
                        r"resample|normali[sz]e|predict|infer|compute|fit|train|save|write|copy|crop|resize|"
                        r"convert|pilot|inspect|check|plot|submit|register|mask|label|score|evaluate|export)\w*\b",
                        re.IGNORECASE)


def names_something(line: str, methods: list[str]) -> bool:
    """A step that says what to run and on what (docs/judge.md "S1 Plan": s1b)."""
    line = _MARKER.sub("", line, count=1)      # the step's own number is not a parameter
    low = line.lower()
    return bool(_CONCRETE.search(line) or re.search(r"\d", line) or _operation_on_something(line)) \
        or any(m and m in low for m in methods)


# words that name no object of an operation: pronouns, quantifiers, articles, particles, and the
# names of the work itself, which every task's plan could say ("run inference", "run the pipeline")
_VAGUE = frozenset("it them this that these those everything all anything something things stuff the a an "
                   "every each on to into with of for and then up out over again "
                   "inference pipeline method model approach solution task workflow code script".split())


def _operation_on_something(line: str) -> bool:
    """An operation followed, within its next four words, by a word that names something."""
    for m in OPERATIONS.finditer(line):
        after = re.findall(r"[A-Za-z][\w\-]*", line[m.end():])[:4]
        if m.group().lower() not in _VAGUE and any(w.lower() not in _VAGUE for w in after):   # "inference": no operation
            return True
    return False


_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*+]|\|)\s*")


def executable(steps: list[str], methods: list[str]) -> bool:
    """Whether the steps say what to run (docs/judge.md "S1 Plan": s1b)."""
    listed = [s for s in steps if not s.lstrip().startswith("|")]
    return any(names_something(s, methods) for s in (listed if len(listed) >= 3 else steps))


# a file the plan says it will write under outputs/ (`outputs/<case_id>/enhanced.npy`)
_OUTPUT_FILE = re.compile(r"\boutputs/(?:[^\s/`'\"|()]+/)*([A-Za-z0-9_\-]+(?:\.[A-Za-z][A-Za-z0-9]*)+)")


def another_tasks_outputs(plan: str, contract: Iterable[str]) -> list[str]:
    """Output files the plan names, none of them the task's (docs/judge.md "Another task's plan")."""
    named = list(dict.fromkeys(m.group(1) for m in _OUTPUT_FILE.finditer(plan)))
    return [] if set(contract) & set(named) else named
