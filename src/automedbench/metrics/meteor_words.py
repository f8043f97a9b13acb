"""METEOR's word lookups kept between processes (docs/tracks/report-generation.md "WordNet offline").

A METEOR score needs two things per word: its Porter stem and its WordNet synonym set. Getting
them the first time costs a process ~4.5 s of CPU (importing nltk, ~1.9 s, and reading
WordNet's index, ~2.5 s) before the first report is scored; the answers never change while
nltk and WordNet stay as they are. `WordStore` keeps them in one JSON file per *fingerprint*:

    <$AUTOMEDBENCH_HOME>/meteor/words-<fingerprint>.json   {"stems": {word: stem},
                                                           "synonyms": {word: [lemma, ...]}}

The fingerprint covers what the answers depend on: the nltk version, `$AUTOMEDBENCH_WORDNET`,
and the state (stat of the folder and of each database file) of every place `load_wordnet`
looks — that variable's folder, `corpora/wordnet` under each folder of nltk's data path (the
list nltk builds, rebuilt here without importing nltk: tests/tracks/reportgen/
test_meteor_words.py compares the two), Debian's `/usr/share/wordnet`. Installing, removing or
replacing a WordNet, or upgrading nltk, gives a new fingerprint and so an empty store.

A process whose reports use only stored words never imports nltk. A word not stored is looked
up as before (metrics/meteor.py) and added; `save` merges the new words into the file under a
lock and replaces it atomically, so processes that score at once lose nothing. A store that
cannot be read is ignored (and rewritten); one that cannot be written leaves scoring as it was.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import threading
from importlib import metadata
from pathlib import Path

FORMAT = 1   # bump when what a word's entry means changes


def nltk_data_path() -> list[str]:
    """`nltk.data.path` as nltk builds it on POSIX (nltk/data.py), without importing nltk."""
    dirs = [os.path.expanduser(d) for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    if "APPENGINE_RUNTIME" not in os.environ and os.path.expanduser("~/") != "~/":
        dirs.append(os.path.expanduser("~/nltk_data"))
    return dirs + [os.path.join(sys.prefix, "nltk_data"), os.path.join(sys.prefix, "share", "nltk_data"),
                   os.path.join(sys.prefix, "lib", "nltk_data"), "/usr/share/nltk_data",
                   "/usr/local/share/nltk_data", "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"]


def _stat(path: Path) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_mode:o}:{st.st_uid}:{st.st_size}:{st.st_mtime_ns}"


def fingerprint(debian_wordnet: Path, required: tuple[str, ...]) -> str | None:
    """What the stored answers depend on, hashed; None when nltk is not installed (then there
    is nothing to store: METEOR is null)."""
    try:
        nltk_version = metadata.version("nltk")
    except metadata.PackageNotFoundError:
        return None
    given = os.environ.get("AUTOMEDBENCH_WORDNET", "")
    places = ([Path(given).expanduser()] if given else []) + \
        [Path(d) / "corpora" / name for d in nltk_data_path() for name in ("wordnet", "wordnet.zip")] + \
        [debian_wordnet]
    h = hashlib.sha256(f"{FORMAT}|{nltk_version}|{given}".encode())
    for place in places:
        h.update(f"|{place}={_stat(place)}".encode())
        if place.is_dir():
            for name in required:
                h.update(f"|{name}={_stat(place / name)}".encode())
    return h.hexdigest()[:20]


class WordStore:
    """The stems and synonym sets stored under one fingerprint, and those added since loading."""

    def __init__(self, path: Path):
        self.path = path
        self.stems: dict[str, str] = {}
        self.synonyms: dict[str, frozenset[str]] = {}
        self._saved = (0, 0)
        self._lock = threading.Lock()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            self.stems = {str(w): str(s) for w, s in data["stems"].items()}
            self.synonyms = {str(w): frozenset(map(str, s)) for w, s in data["synonyms"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass   # absent or unreadable: start empty; the next save rewrites it whole
        self._saved = (len(self.stems), len(self.synonyms))

    def unsaved(self) -> bool:
        return (len(self.stems), len(self.synonyms)) != self._saved

    def save(self) -> None:
        """Merge what this process added into the file (others may have added words too)."""
        with self._lock:
            if not self.unsaved():
                return
            stems, synonyms = dict(self.stems), dict(self.synonyms)
            written = (len(stems), len(synonyms))   # words other threads add meanwhile wait for the next save
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path.with_suffix(".lock"), "a") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX)
                    on_disk = WordStore(self.path)      # what other processes saved meanwhile
                    stems = {**on_disk.stems, **stems}
                    synonyms = {**on_disk.synonyms, **synonyms}
                    tmp = self.path.with_suffix(f".tmp{os.getpid()}")
                    tmp.write_text(json.dumps({"stems": stems, "synonyms": {w: sorted(s) for w, s in synonyms.items()}},
                                              sort_keys=True), encoding="utf-8")
                    os.replace(tmp, self.path)
            except OSError:
                return   # a read-only home: scoring is unaffected, the next process looks words up again
            self._saved = written


def word_store(home: Path, debian_wordnet: Path, required: tuple[str, ...]) -> WordStore | None:
    key = fingerprint(debian_wordnet, required)
    return None if key is None else WordStore(home / "meteor" / f"words-{key}.json")

