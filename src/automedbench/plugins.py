"""One registry mechanism for every kind of pluggable part (docs/architecture.md, "One registry").

Tracks, sandbox backends, agent classes, judges, executors and datasets are each a
`Registry[T]`: a name -> object table filled from three places, in this order of precedence:

  1. built-ins: the harness's own parts, registered with the `@REG.register("name")` decorator
     where they are defined, or found by the kind's `builtins` hook (tracks: every sub-package
     of `automedbench.tracks` that defines `TRACK`);
  2. plug-ins: Python entry points in the group `automedbench.<kind>` of any installed
     distribution, loaded lazily on the first lookup;
  3. run-time additions: `REG.add(name, obj)` (tests, notebooks).

Rules: a broken plug-in (its import fails, or the kind's validator refuses what it loads) is
logged and skipped, never crashing the harness; a plug-in whose name a built-in already holds
is skipped with a warning (built-ins win); any other duplicate name is refused with an error
naming both origins. An unknown name raises the kind's user error naming the known ones.

This module imports only the standard library and `errors` (it sits below every layer that
registers something; the sandbox package must import with the standard library alone).
"""
from __future__ import annotations

import logging
import re
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Final, Generic, Literal, TypeVar

from .errors import UserError

log = logging.getLogger(__name__)

T = TypeVar("T")
F = TypeVar("F")
Source = Literal["built-in", "plug-in", "run-time"]
BUILT_IN: Final = "built-in"
GROUP_PREFIX = "automedbench."


class RegistryError(UserError, LookupError):
    """An unknown name, or a name registered twice."""


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered object: where it came from and what it is, for `automedbench <kind> list`."""
    name: str
    obj: T
    source: Source
    origin: str            # "built-in", "<distribution> <version>" of a plug-in, "run-time (<module>)"
    description: str = ""
    from_hook: bool = False   # found by the `builtins` hook (re-read when `follows` changes)

    def row(self) -> dict[str, str]:
        return {"name": self.name, "origin": self.origin, "description": self.description}


def first_line(obj: Any) -> str:
    """A one-line description of `obj`: the first sentence of its docstring (an instance reads its
    class's), else of its module's docstring; "" when neither has one."""
    doc = getattr(obj, "__doc__", None) or ""   # a class never falls back to type's own docstring
    if not doc.strip():
        module = sys.modules.get(_module_of(obj))
        doc = (module.__doc__ if module is not None else None) or ""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    sentence = re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]
    return sentence.rstrip(".")


def _module_of(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else type(obj).__module__


def _is_ours(module: str) -> bool:
    return module == "automedbench" or module.startswith("automedbench.")


BuiltinsHook = Callable[[], Iterable["tuple[str, Any, str] | tuple[str, Any, str, str]"]]


class Registry(Generic[T]):
    """A name -> T table for one kind of part (see the module docstring for the rules).

    kind: the noun used in messages ("sandbox backend"); group: the entry-point group
    (default `automedbench.<kind>s` with spaces as underscores); validate(obj, where) returns the
    object to store (it may wrap it) or raises to refuse it; name_of(obj): the name of a
    plug-in's object when the kind names objects itself (tracks, datasets) instead of by the
    entry point's name; builtins: a hook yielding (name, obj, origin[, description]) of parts
    found rather than decorated; follows: another registry whose changes re-run `builtins`
    (datasets follow tracks); error: the user-error class an unknown name raises."""

    def __init__(self, kind: str, *, group: str | None = None,
                 validate: Callable[[Any, str], T] | None = None,
                 name_of: Callable[[T], str] | None = None,
                 describe: Callable[[T], str] | None = None,
                 builtins: BuiltinsHook | None = None,
                 follows: Registry[Any] | None = None,
                 error: type[Exception] = RegistryError) -> None:
        self.kind = kind
        self.group = group or GROUP_PREFIX + kind.replace(" ", "_") + "s"
        self._validate = validate
        self._name_of = name_of
        self._describe = describe or first_line
        self._builtins = builtins
        self._follows = follows
        self._error = error
        self._entries: dict[str, Entry[T]] = {}
        self._loaded = False
        self._loading = False
        self._lock = threading.RLock()
        self._seen_generation = -1
        self.generation = 0   # counts changes, so a registry that follows this one knows to re-read

    # ---- registering -----------------------------------------------------------------------
    def register(self, name: str | None = None, *, description: str | None = None) -> Callable[[F], F]:
        """Decorator: `@REG.register("name")` above a class or function registers it (a built-in
        when it is defined inside automedbench, else a run-time addition). Returns it unchanged."""
        def decorate(obj: F) -> F:
            self.add(name, obj, description=description)
            return obj
        return decorate

    def add(self, name: str | None, obj: Any, *, description: str | None = None,
            replace: bool = False, module: str | None = None) -> T:
        """Register `obj` under `name` (default: the kind's own name of it) now; returns what is stored.
        A name already taken is refused unless `replace=True`. `module`: the module the entry is
        attributed to (default the object's): inside automedbench it is a built-in."""
        module = module or _module_of(obj)
        source: Source = BUILT_IN if _is_ours(module) else "run-time"
        origin = BUILT_IN if source == BUILT_IN else f"run-time ({module})"
        return self._put(name, obj, source=source, origin=origin, description=description, replace=replace)

    def remove(self, name: str) -> None:
        """Forget `name` (a test's run-time addition); unknown names are ignored."""
        if self._entries.pop(name, None) is not None:
            self.generation += 1

    def _put(self, name: str | None, obj: Any, *, source: Source, origin: str, description: str | None,
             replace: bool = False, from_hook: bool = False) -> T:
        where = f"{self.kind} {name!r} ({origin})" if name else f"{self.kind} ({origin})"
        value: T = self._validate(obj, where) if self._validate is not None else obj
        key = name or (self._name_of(value) if self._name_of is not None else None)
        if not key:
            raise RegistryError(f"{where}: no name given")
        held = self._entries.get(key)
        if held is not None and not replace:
            if source == "plug-in":
                log.warning("skipping %s plug-in %r from %s: the name is taken by %s", self.kind, key, origin,
                            held.origin)
                return held.obj
            if from_hook and held.source == "run-time":   # a run-time addition stays over a re-read
                return held.obj
            if source == BUILT_IN and held.source == "plug-in":
                log.warning("built-in %s %r replaces the plug-in of the same name from %s", self.kind, key,
                            held.origin)
            else:
                raise RegistryError(f"{self.kind} {key!r} is already registered ({held.origin}); "
                                    f"refusing a second one ({origin}): pick another name")
        text = description if description is not None else self._describe(value)
        self._entries[key] = Entry(key, value, source, origin, text, from_hook)
        self.generation += 1
        return value

    # ---- loading -----------------------------------------------------------------------------
    def _ensure(self) -> None:
        stale = self._follows is not None and self._follows.generation != self._seen_generation
        if self._loaded and not stale:
            return
        # one thread loads; another asking meanwhile waits for it, never sees a half-read
        # registry (an RL server's threads ask for tasks at once); the loading thread's own
        # nested lookups pass (`_loading`)
        with self._lock:
            self._ensure_locked()

    def _ensure_locked(self) -> None:
        if self._loading:
            return
        stale = self._follows is not None and self._follows.generation != self._seen_generation
        if self._loaded and not stale:
            return
        self._loading = True
        try:
            if self._follows is not None:
                self._follows._ensure()
                self._seen_generation = self._follows.generation
            if self._builtins is not None:
                self._read_builtins()
            if not self._loaded:
                self._load_plugins()
            self._loaded = True
        finally:
            self._loading = False

    def _read_builtins(self) -> None:
        assert self._builtins is not None
        for name in [n for n, e in self._entries.items() if e.from_hook]:
            del self._entries[name]
        for found in self._builtins():
            name, obj, origin = found[0], found[1], found[2]
            text = found[3] if len(found) > 3 else None
            source: Source = BUILT_IN if origin == BUILT_IN else "plug-in"
            try:
                self._put(name, obj, source=source, origin=origin, description=text, from_hook=True)
            except Exception as exc:
                if source == BUILT_IN:   # a broken built-in is a bug: raise
                    raise
                log.warning("skipping %s %r (from %s): %s", self.kind, name, origin, exc)

    def _load_plugins(self) -> None:
        for ep in metadata.entry_points(group=self.group):
            dist = getattr(ep, "dist", None)
            origin = f"{dist.name} {dist.version}" if dist is not None else f"entry point {ep.value}"
            try:
                obj = ep.load()
                self._put(None if self._name_of is not None else ep.name, obj, source="plug-in",
                          origin=origin, description=None)
            except Exception as exc:  # a third-party plug-in must never break the harness
                log.warning("skipping %s plug-in %s (%s, from %s): %s", self.kind, ep.name, ep.value, origin, exc)

    def reload(self) -> None:
        """Read built-ins and plug-ins again on the next lookup (a test that changed sys.path);
        run-time additions and decorated built-ins stay."""
        for name in [n for n, e in self._entries.items() if e.source == "plug-in" or e.from_hook]:
            del self._entries[name]
        self._loaded = False
        self.generation += 1

    # ---- lookups -----------------------------------------------------------------------------
    def get(self, name: str) -> T:
        self._ensure()
        entry = self._entries.get(name)
        if entry is None:
            known = ", ".join(sorted(self._entries)) or "none"
            raise self._error(f"unknown {self.kind} {name!r}; known: {known}")
        return entry.obj

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return name in self._entries

    def names(self) -> list[str]:
        self._ensure()
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        self._ensure()
        return [(e.name, e.obj) for e in self._entries.values()]

    def entries(self) -> list[Entry[T]]:
        """Every entry with its origin and description (what `automedbench <kind> list` prints)."""
        self._ensure()
        return list(self._entries.values())
