"""Graded items found again after the corpus changed, through the engine contract alone.

A grade names the row's id (a note's path, a symbol's place, a product's catalogue id) and keeps what
the row said when it was graded: its title and where. An id the engine still reads (``Engine.read``)
is the same item. One it no longer reads was moved or edited: the engine is searched for the kept
title, and the one row with that title (and, among several, the one whose place ends as the kept
one's file name does) is the item, its grades moved to its new id in the journal. An item found no
more is gone: named once per reading, its grades kept (a note that comes back is graded again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from engines.eval.judgements.store import Judgements

SEARCHED = 20  # rows of a title search looked through: an exact title is near the top of its own search


@dataclass
class Resolution:
    moved: dict[str, str] = field(default_factory=dict)  # old id -> new id
    gone: list[str] = field(default_factory=list)
    unmoved: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = self.unmoved + [f"graded item {old} is now {new} (moved or edited; its grades follow it)"
               for old, new in self.moved.items()]
        if self.gone:
            shown = ", ".join(self.gone[:5]) + (f" and {len(self.gone) - 5} more" if len(self.gone) > 5 else "")
            out.append(f"{len(self.gone)} graded item{'s are' if len(self.gone) > 1 else ' is'} no longer in the"
                       f" corpus ({shown}): kept, not scored")
        return out


def exists(engine, item: str) -> bool:
    try:
        engine.read(item)
        return True
    except KeyError:
        return False
    except (OSError, ValueError):
        return False


def _stem(where: str) -> str:
    return PurePosixPath(where.split(":", 1)[0].replace("\\", "/")).name


def find_again(engine, title: str, where: str) -> str | None:
    """The current id of the row titled ``title`` (None: none, or several with nothing to choose by)."""
    if not title.strip():
        return None
    try:
        answer = engine.collect(title, engine.search(title, limit=SEARCHED, tiers=engine.evidence_tiers or None))
    except (ValueError, OSError):
        return None
    same = [h for h in answer.hits if h.title == title]
    if len(same) > 1 and where:
        same = [h for h in same if _stem(h.where) == _stem(where)] or same
    return same[0].id if len(same) == 1 else None


def resolve(engine, judgements: Judgements) -> Resolution:
    """Each graded item checked against the engine's corpus now: moved ones re-keyed in the journal."""
    out = Resolution()
    kept: dict[str, tuple[str, str]] = {}
    for j in judgements.all().values():
        kept.setdefault(j.item, (j.title, j.where))
    for item, (title, where) in kept.items():
        if exists(engine, item):
            continue
        new = find_again(engine, title, where)
        if new is not None and new != item and new not in kept:
            try:
                judgements.move(item, new)
            except OSError as exc:  # a read-only data folder: scored under its old id this time, said
                out.unmoved.append(f"graded item {item} is now {new}, but its grades could not be moved "
                                   f"({(exc.strerror or str(exc)).lower()})")
                out.gone.append(item)
                continue
            out.moved[item] = new
        else:
            out.gone.append(item)
    return out
