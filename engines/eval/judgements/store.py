"""A person's grades of a corpus's rows, kept as their data: one journal file per engine and corpus.

Where: ``$XDG_DATA_HOME/olai-tui/judgements/<engine>/<hash of the corpus>.jsonl``, the corpus keyed
as the caches key it (engines/index_folder.py: a hash of its absolute path), never inside the
searched folder. The first line names the engine and the corpus's path, so a person can find the
file for a corpus by reading it.

Each grade is one JSON line written under an ``flock`` on ``<file>.lock`` and flushed to disk before
the lock is let go: two processes grading the same corpus at once each write whole lines, one after
the other, and neither loses the other's (tests/judgements/test_judgements_store.py runs two). One
grade is appended, and cut back off if its write fails; several (an import) replace the file whole,
so a crash or a full disk keeps all of them or none (issue 57). A damaged line (cut by a crash, edited
by hand, a wrong type) is named ``FILE:LINE: why`` by every reader and set aside by the next writer
(journal.py); the rest are read. Reading folds the journal: the latest line for a (query, item) wins,
a line with ``grade`` null clears it, and a query is matched whatever its case and spacing. When
superseded lines outnumber the live ones the journal is rewritten whole (atomically, under the lock).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from engines.atomic import atomic_file, taking_turns
from engines.eval.judgements import journal
from engines.errors import BadInput
from engines.locations import corpus_key, data_root  # noqa: F401 - corpus_key: the runs and the knobs key by it too

FORMAT = 1
GRADES = journal.GRADES
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


def query_fold(query: str) -> str:
    """What two queries share when they are the same query to a person: "Seedlings" is "seedlings"."""
    return query_key(query).casefold()


def journal_path(engine: str, corpus: str | os.PathLike, folder: Path | None = None) -> Path:
    key = corpus_key(corpus)
    tag = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return (folder or data_root() / "judgements") / engine / f"{tag}.jsonl"


class Judgements:
    """The judgement list of one engine's corpus. ``problems``: lines of the journal that could not be
    read, each named once, ``FILE:LINE: why`` (the rest are read)."""

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
        """(query folded, item) -> its latest grade; cleared ones are absent. A query graded as
        "Seedlings" and as "seedlings " is one query, kept as first typed (``Judgement.query``)."""
        with self._locked(shared=True):
            found = journal.scan(self.path)
        self._name(found.damaged, aside=False)
        return _fold(found)[0]

    def by_query(self) -> dict[str, dict[str, int]]:
        """query (as first typed) -> {item: grade}, queries in the order first graded."""
        out: dict[str, dict[str, int]] = {}
        for j in self.all().values():
            out.setdefault(j.query, {})[j.item] = j.grade
        return out

    def of_query(self, query: str) -> dict[str, int]:
        key = query_fold(query)
        return {item: j.grade for (q, item), j in self.all().items() if q == key}

    # -- writing ---------------------------------------------------------------------------------
    def grade(self, query: str, item: str, grade: int | None, title: str = "", where: str = "") -> None:
        """Keep ``grade`` (0-3) for ``item`` under ``query``; None clears it."""
        self.write([(query, item, grade, title, where)])

    def write(self, grades) -> None:
        """Grades kept: (query, item, grade, title, where). One grade is appended (cut back off if the
        write fails); several (an import) replace the journal whole, so a crash or a full disk keeps
        all of them or none. Damaged lines found are first set aside (journal.py)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        lines = []
        for query, item, grade, title, where in grades:
            record = {"query": query_key(query), "item": item, "grade": grade, "time": stamp}
            record.update({k: v for k, v in (("title", title), ("where", where)) if v})
            journal.check(record)
            lines.append(json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n")
        if not lines:
            return
        with self._locked(shared=False):
            journal.sweep(self.path)
            found = journal.scan(self.path)
            if found.damaged:
                journal.set_aside(self.path, found.damaged, stamp)
                self._name(found.damaged, aside=True)
            live, count = _fold(found)
            if found.damaged or len(lines) > 1 or count + len(lines) - len(live) > COMPACT_AFTER:
                kept = [raw for _, raw, record in found.good if "olai-tui" not in record]
                if count + len(lines) - len(live) > COMPACT_AFTER:
                    kept = [_line(j) for j in live.values()]
                with atomic_file(self.path, "wb", sync_folder=True) as out:
                    out.write(json.dumps(self._header(), ensure_ascii=False).encode() + b"\n")
                    out.writelines(r if r.endswith(b"\n") else r + b"\n" for r in kept)
                    out.writelines(lines)
            else:
                head = b"" if found.ends_clean else b"\n"  # a last line without its end (edited by hand)
                if not found.good:
                    head += json.dumps(self._header(), ensure_ascii=False).encode() + b"\n"
                journal.append(self.path, head + lines[0])

    def move(self, old: str, new: str, title: str = "", where: str = "") -> None:
        """An item found again under another id (a note moved): its grades now name ``new``."""
        moved = [(j.query, new, j.grade, title or j.title, where or j.where)
                 for (q, item), j in self.all().items() if item == old]
        self.write(moved + [(q, old, None, "", "") for q, *_ in moved])

    # -- the file --------------------------------------------------------------------------------
    def _header(self) -> dict:
        return {"olai-tui": "judgements", "format": FORMAT, "engine": self.engine, "corpus": self.corpus}

    def _name(self, damaged, aside: bool) -> None:
        where = f"moved to {journal.aside_path(self.path).name} beside it" if aside else "kept in the file"
        for number, _, why in damaged:
            line = f"{self.path}:{number}: not a grade ({why}); skipped, {where}"
            if line not in self._said:
                self._said.add(line)
                self.problems.append(line)

    def _locked(self, shared: bool):
        return taking_turns(str(self.path) + ".lock", shared=shared)


def _fold(found: journal.Scan) -> tuple[dict[tuple[str, str], Judgement], int]:
    """The latest grade of each (query, item), and how many grade lines there were."""
    latest: dict[tuple[str, str], dict] = {}
    typed: dict[str, str] = {}  # a query's fold -> the text it was first graded as
    count = 0
    for _, _, record in found.good:
        if "olai-tui" in record:
            continue
        count += 1
        text = " ".join(record["query"].split())  # query_key
        key = (text.casefold(), record["item"])  # query_fold
        typed.setdefault(key[0], text)
        latest.pop(key, None)  # the latest line goes last: queries keep their first-graded order
        latest[key] = record
    live = {key: Judgement(typed[key[0]], key[1], r["grade"], r.get("time", ""), r.get("title", ""), r.get("where", ""))
            for key, r in latest.items() if r["grade"] is not None}
    return live, count


def _line(j: Judgement) -> bytes:
    record = {"query": j.query, "item": j.item, "grade": j.grade, "time": j.time}
    record.update({k: v for k, v in (("title", j.title), ("where", j.where)) if v})
    return json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n"


def _inside(path: Path, folder: Path) -> bool:
    try:
        return folder.is_dir() and path.resolve().is_relative_to(folder)
    except OSError:
        return False
