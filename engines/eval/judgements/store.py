"""A person's grades of a corpus's rows, kept as their data: one journal file per engine and corpus.

Where: ``$XDG_DATA_HOME/olai-tui/judgements/<engine>/<hash of the corpus>.jsonl``, the corpus keyed
as the caches key it (engines/index_folder.py: a hash of its absolute path), never inside the
searched folder. The first line names the engine and the corpus's path, so a person can find the
file for a corpus by reading it.

Each grade is one JSON line appended under an ``flock`` on ``<file>.lock`` and flushed to disk
before the lock is let go: two processes grading the same corpus at once each append whole lines,
one after the other, and neither loses the other's (tests/judgements/test_store.py runs two). A line
a crash cut short is named once and skipped; the lines after it are read. Reading folds the journal:
the latest line for a (query, item) wins, a line with ``grade`` null clears it. When superseded
lines outnumber the live ones the journal is rewritten whole (atomically, under the same lock).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from engines.atomic import atomic_file, taking_turns
from engines.errors import BadInput
from engines.locations import data_root

FORMAT = 1
GRADES = (0, 1, 2, 3)
# The scale, as Quepid's and TREC's graded lists use it; the products judge's labels map onto it.
GRADE_WORDS = {0: "irrelevant", 1: "related", 2: "good or a stand-in", 3: "exactly right"}
# Rewrite the journal once it holds this many more lines than live grades (regrading one row a
# hundred times keeps a hundred lines until then); small enough that a file stays a few hundred KB.
COMPACT_AFTER = 2000


@dataclass(frozen=True)
class Judgement:
    """One grade: ``item`` is the engine's row id, ``title`` and ``where`` what the row said when it was
    graded (what finds the item again after it moved: engines/eval/judgements/items.py)."""

    query: str
    item: str
    grade: int
    time: str
    title: str = ""
    where: str = ""


def query_key(query: str) -> str:
    """A query as it is kept: its words, one space apart (a trailing space typed is the same query)."""
    return " ".join(query.split())


def corpus_key(corpus: str | os.PathLike) -> str:
    """The corpus as the caches key it: a folder or file's absolute path; a URL (a catalogue in a
    database) as given, any password hidden."""
    from engines.locations import shown_url

    text = str(corpus)
    if "://" in text:
        return shown_url(text)
    return str(Path(text).expanduser().resolve())


def journal_path(engine: str, corpus: str | os.PathLike, folder: Path | None = None) -> Path:
    key = corpus_key(corpus)
    tag = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return (folder or data_root() / "judgements") / engine / f"{tag}.jsonl"


class Judgements:
    """The judgement list of one engine's corpus. ``problems``: lines of the journal that could not be
    read, each named once with its line number (the rest are read)."""

    def __init__(self, engine: str, corpus: str | os.PathLike, folder: Path | None = None) -> None:
        self.engine = engine
        self.corpus = corpus_key(corpus)
        self.path = journal_path(engine, corpus, folder)
        if "://" not in self.corpus and _inside(self.path, Path(self.corpus)):
            raise BadInput(f"{self.path}: the judgements would be written inside the searched folder "
                           f"{self.corpus}; set XDG_DATA_HOME elsewhere")
        self.problems: list[str] = []
        self._said: set[str] = set()

    # -- reading ---------------------------------------------------------------------------------
    def all(self) -> dict[tuple[str, str], Judgement]:
        """(query, item) -> its latest grade; cleared ones are absent."""
        with self._locked(shared=True):
            live, _ = self._fold()
        return live

    def by_query(self) -> dict[str, dict[str, int]]:
        """query -> {item: grade}, queries in the order first graded."""
        out: dict[str, dict[str, int]] = {}
        for (query, item), j in self.all().items():
            out.setdefault(query, {})[item] = j.grade
        return out

    def of_query(self, query: str) -> dict[str, int]:
        key = query_key(query)
        return {item: j.grade for (q, item), j in self.all().items() if q == key}

    # -- writing ---------------------------------------------------------------------------------
    def grade(self, query: str, item: str, grade: int | None, title: str = "", where: str = "") -> None:
        """Keep ``grade`` (0-3) for ``item`` under ``query``; None clears it."""
        self.write([(query, item, grade, title, where)])

    def write(self, grades) -> None:
        """Several grades at once, one line each, appended under one lock: (query, item, grade, title, where)."""
        lines = []
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for query, item, grade, title, where in grades:
            if grade is not None and grade not in GRADES:
                raise ValueError(f"grade {grade!r}: grades are 0, 1, 2 or 3")
            record = {"query": query_key(query), "item": item, "grade": grade, "time": stamp}
            if title:
                record["title"] = title
            if where:
                record["where"] = where
            lines.append(json.dumps(record, ensure_ascii=False) + "\n")
        if not lines:
            return
        with self._locked(shared=False):
            new = not self.path.exists() or self.path.stat().st_size == 0
            with open(self.path, "a", encoding="utf-8") as out:
                if new:
                    out.write(json.dumps(self._header(), ensure_ascii=False) + "\n")
                out.write("".join(lines))
                out.flush()
                os.fsync(out.fileno())
            live, count = self._fold()
            if count - len(live) > COMPACT_AFTER:
                self._rewrite(live)

    def move(self, old: str, new: str, title: str = "", where: str = "") -> None:
        """An item found again under another id (a note moved): its grades now name ``new``."""
        moved = [(j.query, new, j.grade, title or j.title, where or j.where)
                 for (q, item), j in self.all().items() if item == old]
        self.write(moved + [(q, old, None, "", "") for q, *_ in moved])

    # -- the file --------------------------------------------------------------------------------
    def _header(self) -> dict:
        return {"olai-tui": "judgements", "format": FORMAT, "engine": self.engine, "corpus": self.corpus}

    def _fold(self) -> tuple[dict[tuple[str, str], Judgement], int]:
        live: dict[tuple[str, str], Judgement] = {}
        count = 0
        try:
            handle = open(self.path, encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            return live, 0
        with handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    if number == 1 and "olai-tui" in record:
                        continue
                    key = (query_key(record["query"]), str(record["item"]))
                    grade = record["grade"]
                    if grade is not None and grade not in GRADES:
                        raise ValueError(f"grade {grade!r}")
                except (ValueError, KeyError, TypeError) as exc:
                    self._problem(f"{self.path}:{number}: not a grade, skipped ({_why(exc)})")
                    continue
                count += 1
                if grade is None:
                    live.pop(key, None)
                else:
                    live.pop(key, None)  # the latest grade goes last: queries keep their first-graded order
                    live[key] = Judgement(key[0], key[1], grade, str(record.get("time", "")),
                                          str(record.get("title", "")), str(record.get("where", "")))
        return live, count

    def _rewrite(self, live: dict[tuple[str, str], Judgement]) -> None:
        with atomic_file(self.path, "w") as out:
            out.write(json.dumps(self._header(), ensure_ascii=False) + "\n")
            for j in live.values():
                record = {"query": j.query, "item": j.item, "grade": j.grade, "time": j.time}
                record.update({k: v for k, v in (("title", j.title), ("where", j.where)) if v})
                out.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _problem(self, line: str) -> None:
        if line not in self._said:
            self._said.add(line)
            self.problems.append(line)

    def _locked(self, shared: bool):
        return taking_turns(str(self.path) + ".lock", shared=shared)


def _inside(path: Path, folder: Path) -> bool:
    try:
        return folder.is_dir() and path.resolve().is_relative_to(folder)
    except OSError:
        return False


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    if isinstance(exc, json.JSONDecodeError):
        return "not JSON: cut short or edited"
    return str(exc) or type(exc).__name__
