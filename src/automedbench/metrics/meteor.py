"""METEOR (Banerjee & Lavie 2005; Lavie & Agarwal 2007), exactly as nltk ≥ 3.10 computes it.

    P = m / |hyp|, R = m / |ref|, Fmean = P·R / (α·P + (1−α)·R)
    penalty = γ · (chunks / m)^β,  METEOR = (1 − penalty) · Fmean      (α=0.9, β=3, γ=0.5)
m counts unigram alignments made in three passes — exact, Porter stem, WordNet synonym —
each pass greedy from the last hypothesis word backwards to the last unmatched reference
position (nltk's `_match_enums` / `_enum_wordnetsyn_match`); `chunks` counts runs of
alignments adjacent in both strings. No alignment → 0.

This is nltk's algorithm step for step (the tests compare it with
`nltk.translate.meteor_score.single_meteor_score` on the same WordNet), with two caches that
make it fast over a corpus of reports that share a small vocabulary: each word is stemmed
once and its WordNet synonym set is looked up once. The stemmer IS nltk's `PorterStemmer`.
The caches can be kept between processes (meteor_words.py), so that a process scoring words
already seen loads neither nltk nor WordNet.

WordNet must be present offline; we never download it. `load_wordnet()` looks, in order, at
$AUTOMEDBENCH_WORDNET (a WordNet-3.0 `dict/` folder), nltk's own data (`corpora/wordnet`,
only if already installed) and Debian's `wordnet-base` package (/usr/share/wordnet). When
none is there METEOR is reported as null with that reason — never replaced by a variant
without synonyms.
"""
from __future__ import annotations

import io
import os
import threading
import warnings
from collections import defaultdict
from functools import lru_cache
from itertools import chain, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .meteor_words import WordStore

_Enum = list[tuple[int, str]]   # (word position, word or stem), as nltk enumerates them

ALPHA, BETA, GAMMA = 0.9, 3.0, 0.5
DEBIAN_WORDNET = Path("/usr/share/wordnet")
WORDNET_HINT = ("install WordNet 3.0: `apt-get install wordnet-base` (Debian/Ubuntu), or nltk's "
                "`wordnet` data, or set AUTOMEDBENCH_WORDNET to a WordNet dict/ folder")

# WordNet 3.0's lexicographer files, numbered (lexnames(5WN)). Debian's wordnet-base ships
# the database but not this small index file, which nltk's reader opens; we supply it to the
# reader for the packaged files (see _reader_class). Third column: syntactic category (1 noun, 2 verb, 3 adj, 4 adv).
_LEXNAMES = ["adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl"]
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
REQUIRED_FILES = ("index.noun", "index.verb", "index.adj", "index.adv",
             "data.noun", "data.verb", "data.adj", "data.adv",
             "noun.exc", "verb.exc", "adj.exc", "adv.exc")


def _lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n"
                   for i, name in enumerate(_LEXNAMES))


def _reader_class() -> type:
    """nltk's WordNetCorpusReader for a plain WordNet 3.0 `dict/` folder:
      - `lexnames` is supplied when the folder lacks it (Debian's wordnet-base);
      - the WordNet-3.0 → loaded-version synset map (`map_wn`, used only to align the
        multilingual OMW data, which METEOR does not use) is not built: nltk builds it from
        its own downloaded `wordnet` corpus, which is exactly what we cannot assume here.
    Every other file is read from the folder as is, by nltk's own code."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class PlainWordNet30(WordNetCorpusReader):
        def open(self, fileid: str) -> Any:
            if fileid == "lexnames" and not os.path.isfile(os.path.join(self.root.path, "lexnames")):
                return io.StringIO(_lexnames_text())
            return super().open(fileid)

        def map_wn(self, version: str = "wordnet") -> None:
            return None

        # The three scans below build what nltk's own do (tests/tracks/reportgen/
        # test_text_metrics.py compares them), reading each file with Python's own line
        # iterator: nltk's seekable reader made loading WordNet ~4 s of CPU per process.
        def _plain_lines(self, fileid: str) -> Any:
            return open(os.path.join(self.root.path, fileid), encoding=self._encoding)

        def _scan_satellites(self) -> None:
            with self._plain_lines("data.adj") as fh:
                self.satellite_offsets = _satellite_offsets(fh)

        def _load_lemma_pos_offset_map(self) -> None:
            for suffix in self._FILEMAP.values():
                with self._plain_lines(f"index.{suffix}") as fh:
                    _read_index(fh, f"index.{suffix}", self._lemma_pos_offset_map, self.satellite_offsets)

        def _load_exception_map(self) -> None:
            from nltk.corpus.reader.wordnet import ADJ, ADJ_SAT
            for pos, suffix in self._FILEMAP.items():
                with self._plain_lines(f"{suffix}.exc") as fh:
                    self._exception_map[pos] = {(terms := line.split())[0]: terms[1:] for line in fh}
            self._exception_map[ADJ_SAT] = self._exception_map[ADJ]

    return PlainWordNet30


def _satellite_offsets(lines: Any) -> set[int]:
    """The offsets of the adjective satellites ('s' synsets) in data.adj's lines."""
    satellites = set()
    for line in lines:
        if not line.strip() or line.startswith(" "):
            continue
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "s":
            satellites.add(int(fields[0]))
    return satellites


def _read_index(lines: Any, name: str, by_lemma: dict[str, dict[str, list[int]]], satellites: set[int]) -> None:
    """One index.<pos> file into lemma -> pos -> synset offsets, as nltk's own reader does:
    `lemma pos n_synsets n_pointers pointer... n_senses n_ranked offset...`; an adjective's
    satellite offsets also under ADJ_SAT."""
    from nltk.corpus.reader.wordnet import ADJ, ADJ_SAT, WordNetError
    for i, line in enumerate(lines):
        if line.startswith(" "):
            continue
        f = line.split()
        try:
            lemma, pos, n_synsets, n_pointers = f[0], f[1], int(f[2]), int(f[3])
            assert n_synsets > 0 and n_synsets == int(f[4 + n_pointers])
            first = 6 + n_pointers           # after the ranked-senses count
            offsets = [int(x) for x in f[first:first + n_synsets]]
            if len(offsets) != n_synsets:
                raise ValueError(f"{len(offsets)} synset offsets, {n_synsets} announced")
        except (AssertionError, ValueError, IndexError) as exc:
            raise WordNetError(f"file {name}, line {i + 1}: {exc}") from exc
        by_lemma[lemma][pos] = offsets
        if pos == ADJ:
            by_lemma[lemma][ADJ_SAT] = [o for o in offsets if o in satellites]


def _candidates() -> list[Path]:
    found = []
    if os.environ.get("AUTOMEDBENCH_WORDNET"):
        found.append(Path(os.environ["AUTOMEDBENCH_WORDNET"]).expanduser())
    try:
        import nltk.data

        found.append(Path(str(nltk.data.find("corpora/wordnet"))))
    except (LookupError, ImportError, OSError):
        pass   # nltk's data not installed: fine, look further (never download)
    found.append(DEBIAN_WORDNET)
    return found


@lru_cache(maxsize=1)
def load_wordnet() -> tuple[Any, str]:
    """(nltk WordNetCorpusReader, "") or (None, one-line reason). Cached per process."""
    try:
        import nltk
    except ImportError:
        return None, "nltk is not installed (pip install nltk); " + WORDNET_HINT
    tried = []
    for folder in _candidates():
        if not all((folder / f).is_file() for f in REQUIRED_FILES):
            tried.append(str(folder))
            continue
        try:
            import nltk.data

            # nltk ≥ 3.10 reads corpora only under nltk.data.path (its path sandbox)
            if str(folder.resolve()) not in nltk.data.path:
                nltk.data.path.append(str(folder.resolve()))
            with warnings.catch_warnings():   # "multilingual functions are not available": expected
                warnings.simplefilter("ignore")
                return _reader_class()(str(folder.resolve()), None), ""
        except Exception as exc:  # noqa: BLE001 - a damaged install must not crash scoring: METEOR → null
            tried.append(f"{folder} ({type(exc).__name__}: {exc})")
    return None, f"WordNet not found (looked in {', '.join(tried)}); " + WORDNET_HINT


class MeteorUnavailable(RuntimeError):
    """WordNet could not be loaded when a word first needed it (the message says why)."""


class Meteor:
    """METEOR scorer over pre-tokenised (lower-case) word lists, with per-word caches.

    `wordnet` is an nltk WordNet reader, or a function that returns one (or raises
    MeteorUnavailable), called at the first word whose synonyms are not known yet. `known`
    (metrics/meteor_words.py `WordStore`) gives stems and synonym sets looked up earlier, in
    this or another process, and receives the new ones: with every word of a report known,
    neither nltk's stemmer nor WordNet is loaded."""

    def __init__(self, wordnet: Any, stemmer: Any | None = None, known: WordStore | None = None):
        self._wordnet = wordnet
        self._stemmer = stemmer
        self.known = known
        self._stems: dict[str, str] = known.stems if known is not None else {}
        self._syns: dict[str, frozenset[str]] = known.synonyms if known is not None else {}
        # nltk's WordNet reader seeks and reads shared file handles: not thread-safe, and the
        # core scores cases in threads. Only cache misses take the lock.
        self._lock = threading.Lock()

    @property
    def wordnet(self) -> Any:
        if not hasattr(self._wordnet, "synsets"):      # a loader: the first word not known
            self._wordnet = self._wordnet()
        return self._wordnet

    def _stem(self, word: str) -> str:
        s = self._stems.get(word)
        if s is None:
            with self._lock:
                if self._stemmer is None:
                    from nltk.stem.porter import PorterStemmer

                    self._stemmer = PorterStemmer()
                s = self._stems[word] = self._stemmer.stem(word)
        return s

    def _synonyms(self, word: str) -> frozenset[str]:
        s = self._syns.get(word)
        if s is None:
            with self._lock:
                s = self._syns[word] = frozenset(chain.from_iterable(
                    (lemma.name() for lemma in synset.lemmas() if lemma.name().find("_") < 0)
                    for synset in self.wordnet.synsets(word))).union({word})
        return s

    def score(self, hyp: list[str], ref: list[str]) -> float:
        hyp_e = [(i, w.lower()) for i, w in enumerate(hyp)]
        ref_e = [(j, w.lower()) for j, w in enumerate(ref)]
        n_hyp, n_ref = len(hyp_e), len(ref_e)
        exact, hyp_e, ref_e = _match(hyp_e, ref_e)
        stem, hyp_e, ref_e = _match([(i, self._stem(w)) for i, w in hyp_e],
                                    [(j, self._stem(w)) for j, w in ref_e])
        syn = self._synonym_match(hyp_e, ref_e)
        matches = sorted(exact + stem + syn, key=lambda pair: pair[0])
        m = len(matches)
        try:
            precision = float(m) / n_hyp
            recall = float(m) / n_ref
            fmean = (precision * recall) / (ALPHA * precision + (1 - ALPHA) * recall)
            frag = float(_chunks(matches)) / m
        except ZeroDivisionError:
            return 0.0
        return (1 - GAMMA * frag ** BETA) * fmean

    def _synonym_match(self, hyp_e: _Enum, ref_e: _Enum) -> list[tuple[int, int]]:
        # hyp_e/ref_e hold STEMS here, as in nltk (the synonym pass sees the stem pass's lists)
        positions: dict[str, list[int]] = defaultdict(list)
        for j, (_, w) in enumerate(ref_e):
            positions[w].append(j)
        out = []
        for i in range(len(hyp_e) - 1, -1, -1):
            best_j, best = -1, None
            for s in self._synonyms(hyp_e[i][1]):
                p = positions.get(s)
                if p and p[-1] > best_j:
                    best_j, best = p[-1], s
            if best is not None:
                positions[best].pop()
                out.append((hyp_e[i][0], ref_e[best_j][0]))
        return out


def _match(hyp_e: _Enum, ref_e: _Enum) -> tuple[list[tuple[int, int]], _Enum, _Enum]:
    """nltk's `_match_enums`: greedy exact matching, last hypothesis word first."""
    positions: dict[str, list[int]] = defaultdict(list)
    for j, (_, w) in enumerate(ref_e):
        positions[w].append(j)
    out, used_h, used_r = [], set(), set()
    for i in range(len(hyp_e) - 1, -1, -1):
        p = positions.get(hyp_e[i][1])
        if p:
            j = p.pop()
            used_h.add(i)
            used_r.add(j)
            out.append((hyp_e[i][0], ref_e[j][0]))
    return (out, [x for i, x in enumerate(hyp_e) if i not in used_h],
            [x for j, x in enumerate(ref_e) if j not in used_r])


def _chunks(matches: list[tuple[int, int]]) -> int:
    chunks = 1
    for a, b in pairwise(matches):
        if not (b[0] == a[0] + 1 and b[1] == a[1] + 1):
            chunks += 1
    return chunks
