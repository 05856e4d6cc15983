"""Knobs: the constants an engine chose by measurement, declared so that a person can set them for a corpus.

Each engine declares its knobs (``Engine.knobs``, a :class:`Knobs`): name, type, range or choices,
default (the constant the code had: the knob's default *is* that constant), what it does and the
measurement that chose the default. Where the code read the constant it now reads the knob's value in
force (``KNOBS.value("fusion_k")``).

The value in force, last wins:

1. the default (the constant beside its measurement);
2. ``config.toml``'s ``[ENGINE.settings]`` table (every corpus of that engine);
3. this corpus's own settings: ``$XDG_CONFIG_HOME/olai-tui/corpora.json``, keyed by engine and corpus
   (the corpus keyed as its grades are, engines/eval/judgements/store.py: an absolute path, or a URL
   with any password hidden), written atomically under an flock by ``olai-tui tune --adopt`` or
   :func:`adopt`. A JSON file of its own, not config.toml: rewriting a person's hand-written TOML
   would drop their comments, and the standard library reads TOML but does not write it.

A value that is not of the knob's type or lies outside its range is named in one line (file, key,
cause) and the next source down is in force. The values in force are set, per engine, by the one place
every face opens an engine (engines/registry.open_engine), before the engine is made: a knob read when
the index is built (code's BM25 k1 and b) is then already the corpus's. They are per process and per
engine name: a process that opens one engine over two corpora at once (the MCP face's pool) has the
later-opened corpus's settings in force for both (said in docs/tuning.md).
"""

from __future__ import annotations

import json
import math
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from engines.errors import BadInput

DEFAULT, CONFIG, CORPUS, TRIED = "default", "config.toml", "this corpus", "being tried"
GRID_POINTS = 5  # a float or int knob's grid: this many points spread over its range, the default among them


@dataclass(frozen=True)
class Knob:
    name: str
    kind: str  # "float" | "int" | "choice"
    default: Any
    does: str  # what it does, in a person's words
    measured: str  # the measurement that chose the default (from the comment beside the constant)
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    # Read when the index is built (code's BM25 k1 and b): a change takes a rebuild, so `tune` leaves it
    # and a person sets it by hand.
    rebuilds: bool = False
    # False: it trades time, not order (a judge's deadline), and grades score order: `tune` leaves it.
    scored: bool = True

    def check(self, value: Any) -> Any:
        """``value`` as this knob takes it; ValueError says why not."""
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(f"not one of {', '.join(map(str, self.choices))}")
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"not a number ({type(value).__name__})")
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        if self.kind == "int":
            if value != int(value):
                raise ValueError("not a whole number")
            value = int(value)
        else:
            value = float(value)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"outside {self.low}..{self.high}")
        return value

    def grid(self) -> tuple:
        """The values a tune tries: the choices, or ``GRID_POINTS`` over the range with the default."""
        if self.kind == "choice":
            return tuple(self.choices)
        points = [self.low + (self.high - self.low) * i / (GRID_POINTS - 1) for i in range(GRID_POINTS)]
        if self.kind == "int":
            points = [int(round(p)) for p in points]
        else:
            points = [round(p, 2) for p in points]
        return tuple(sorted(set(points) | {self.default}))

    def range_said(self) -> str:
        return "|".join(map(str, self.choices)) if self.kind == "choice" else f"{self.low}..{self.high}"

    def to_json(self) -> dict:
        return {"name": self.name, "type": self.kind, "default": self.default, "range": self.range_said(),
                "does": self.does, "measured": self.measured, "rebuilds": self.rebuilds, "scored": self.scored}


_IN_FORCE: dict[str, dict[str, Any]] = {}  # engine name -> knob name -> value (absent: the default)
_FROM: dict[str, dict[str, str]] = {}  # engine name -> knob name -> where its value came from
_LOCK = threading.Lock()
_DECLARED: dict[str, "Knobs"] = {}  # engine name -> its knobs, as declared


class Knobs:
    """One engine's knobs, in the order a person reads them."""

    def __init__(self, engine: str, *knobs: Knob) -> None:
        self.engine = engine
        self.knobs = tuple(knobs)
        self.by_name = {k.name: k for k in knobs}
        _DECLARED[engine] = self

    def __iter__(self) -> Iterator[Knob]:
        return iter(self.knobs)

    def __len__(self) -> int:
        return len(self.knobs)

    def value(self, name: str) -> Any:
        """The value in force of knob ``name`` (a read site's one call)."""
        values = _IN_FORCE.get(self.engine)
        if values is not None and name in values:
            return values[name]
        return self.by_name[name].default

    def checked(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], list[str]]:
        """The values that are good, and one line per one that is not (``where``: the file and table)."""
        good, problems = {}, []
        for name, value in values.items():
            knob = self.by_name.get(name)
            if knob is None:
                problems.append(f"{where}.{name}: {self.engine} has no such setting "
                                f"(its settings: {', '.join(self.by_name)})")
                continue
            try:
                good[name] = knob.check(value)
            except ValueError as exc:
                problems.append(f"{where}.{name} = {value!r}: {exc}: the value below it is in force")
        return good, problems


def value_of(engine: str, name: str, default: Any) -> Any:
    """The value in force of ``engine``'s knob ``name``, ``default`` (its declared default) when none is
    set: for a read site in a module its engine's Knobs declaration imports (code's BM25 k1 and b)."""
    values = _IN_FORCE.get(engine)
    return values[name] if values is not None and name in values else default


def corpora_path() -> Path:
    from engines.locations import config_path

    return config_path().parent / "corpora.json"


def _corpora() -> tuple[dict, str | None]:
    path = corpora_path()
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return {}, f"{path}: not read ({exc.__class__.__name__}): each corpus's own settings are not in force"
    if not isinstance(found, dict):
        return {}, f"{path}: not a JSON object: each corpus's own settings are not in force"
    return found, None


def _key(corpus) -> str:
    from engines.locations import corpus_key

    return corpus_key(corpus)


@dataclass(frozen=True)
class InForce:
    values: dict[str, Any]  # every knob's value in force
    sources: dict[str, str]  # every knob's source: default, config.toml, this corpus
    problems: list[str]
    why: str = ""  # what the corpus's own settings say of themselves ("olai-tui tune: held-out ... on N queries")

    def changed(self) -> dict[str, Any]:
        return {k: v for k, v in self.values.items() if self.sources[k] != DEFAULT}


def resolve(knobs: Knobs, corpus) -> InForce:
    """Every knob's value in force over ``corpus`` (None: no corpus of its own) and where it came from."""
    from engines.settings import read_config

    values = {k.name: k.default for k in knobs}
    sources = {k.name: DEFAULT for k in knobs}
    problems: list[str] = []
    config = read_config()
    table = config.section(knobs.engine, "settings")
    if isinstance(table, dict):
        good, bad = knobs.checked(table, f"{config.path}: [{knobs.engine}.settings]")
        values.update(good)
        sources.update({k: CONFIG for k in good})
        problems += bad
    if corpus is not None:
        corpora, problem = _corpora()
        if problem:
            problems.append(problem)
        own = (corpora.get(knobs.engine) or {}).get(_key(corpus)) if isinstance(corpora.get(knobs.engine), dict) else None
        if isinstance(own, dict):
            good, bad = knobs.checked(own.get("settings") or {}, f"{corpora_path()}: {knobs.engine} {_key(corpus)}")
            values.update(good)
            sources.update({k: CORPUS for k in good})
            problems += bad
            why = own.get("why") if isinstance(own.get("why"), str) else ""
            return InForce(values, sources, problems, why)
    return InForce(values, sources, problems)


def put_in_force(knobs: Knobs, corpus) -> InForce:
    """``corpus``'s values made the ones its engine reads; returns them (and any problems to say)."""
    found = resolve(knobs, corpus)
    with _LOCK:
        _IN_FORCE[knobs.engine] = dict(found.values)
        _FROM[knobs.engine] = dict(found.sources)
    return found


def kept_with_a_run(engine: str) -> dict:
    """What a kept run (engines/eval/judgements/runs.py) says of the settings in force, so that
    ``--against`` names a changed one: ``{"knobs": {name: value}, "knobs_from": {name: source}}``."""
    with _LOCK:
        values, sources = dict(_IN_FORCE.get(engine) or {}), dict(_FROM.get(engine) or {})
    return {"knobs": values, "knobs_from": sources} if values else {}


def not_the_defaults(engine: str) -> dict[str, Any]:
    """The values in force for ``engine`` that are not their knob's default (a tune's trial included):
    what the evaluation's answer cache is keyed by beside the source, so that an answer measured under
    one setting is never printed for another."""
    declared = _DECLARED.get(engine)
    with _LOCK:
        values = dict(_IN_FORCE.get(engine) or {})
    if declared is None:
        return {}
    return {k: v for k, v in sorted(values.items()) if k in declared.by_name and declared.by_name[k].default != v}


def said_in_force(engine: str) -> str | None:
    """The settings in force other than the defaults, in one line; None when every one is its default."""
    with _LOCK:
        values, sources = _IN_FORCE.get(engine) or {}, _FROM.get(engine) or {}
        changed = [f"{k} = {v} ({sources.get(k, TRIED)})" for k, v in values.items() if sources.get(k, DEFAULT) != DEFAULT]
    return ", ".join(changed) or None


def source_of(engine: str, name: str) -> str:
    """Where the value in force of ``engine``'s knob ``name`` came from (default, config.toml, this corpus)."""
    with _LOCK:
        return (_FROM.get(engine) or {}).get(name, DEFAULT)


def in_force(engine: str) -> dict[str, Any]:
    """The values set in force for ``engine`` (empty: none set, every default)."""
    return dict(_IN_FORCE.get(engine) or {})


@contextmanager
def trying(knobs: Knobs, values: Mapping[str, Any]) -> Iterator[None]:
    """``values`` in force while the block runs (a tune trying a setting), then what was before."""
    with _LOCK:
        before = _IN_FORCE.get(knobs.engine)
        _IN_FORCE[knobs.engine] = {**(before or {}), **values}
    try:
        yield
    finally:
        with _LOCK:
            if before is None:
                _IN_FORCE.pop(knobs.engine, None)
            else:
                _IN_FORCE[knobs.engine] = before


def adopt(knobs: Knobs, corpus, values: Mapping[str, Any], why: str = "") -> Path:
    """``values`` written as ``corpus``'s own settings (replacing those it had), atomically; BadInput for a
    value a knob does not take; OSError when the config folder cannot be written."""
    from engines.atomic import atomic_file, taking_turns

    good, problems = knobs.checked(values, "adopt")
    if problems:
        raise BadInput(problems[0])
    path = corpora_path()
    with taking_turns(path.parent / ".corpora.lock"):
        corpora, problem = _corpora()
        if problem:  # never written over: what it holds may be a person's
            raise BadInput(problem.replace("each corpus's own settings are not in force", "not written over"))
        engine = corpora.setdefault(knobs.engine, {})
        if not isinstance(engine, dict):
            raise BadInput(f"{path}: {knobs.engine} is not a JSON object: not written over")
        engine[_key(corpus)] = {"settings": good, "why": why}
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path, "w", sync_folder=True) as out:
            json.dump(corpora, out, ensure_ascii=False, indent=1, sort_keys=True)
    return path


def keep(knobs: Knobs, corpus, values: Mapping[str, Any], why: str = "") -> Path:
    """``values`` adopted for ``corpus`` over the corpus's own values they do not name, and put in force
    in this process now: what `olai-tui tune --adopt` and the workbench's settings view write. A knob the
    corpus has by hand and a tune leaves alone (code's BM25 k1, read at build) keeps its value: a tune's
    setting names only the knobs it moves, and :func:`adopt` replaces the corpus's settings whole."""
    found = resolve(knobs, corpus)
    own = {name: value for name, value in found.values.items() if found.sources[name] == CORPUS}
    path = adopt(knobs, corpus, {**own, **values}, why)
    put_in_force(knobs, corpus)
    return path


def knobs_of(engine_or_class) -> Knobs | None:
    found = getattr(engine_or_class, "knobs", None)
    return found if isinstance(found, Knobs) and len(found) else None
