"""What a vault note says about itself: YAML front matter, Logseq page properties, and dates.

Obsidian-style notes open with a YAML block (``---`` ... ``---``) holding ``title``, ``aliases``,
``tags`` and dates (``date``, ``created``, ``updated``); Logseq pages open with ``key:: value`` lines
(``title::``, ``alias::``, ``tags::``) and keep a journal a day as ``journals/2024_03_01.md``. The
block is read with PyYAML's ``safe_load`` (no regular expressions over YAML: quoting, flow lists and
block lists all mean what YAML says); a block that is not valid YAML, or not a mapping, is named
once by the caller and the note is read as text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field


FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*\r?(?:\n|\Z)", re.S | re.M)
LOGSEQ_PROPERTY = re.compile(r"^([A-Za-z][\w-]*)::[ \t]*(.*)$")
JOURNAL_NAME = re.compile(r"(\d{4})[-_.](\d{2})[-_.](\d{2})$")
DATE_KEYS = ("date", "created", "updated")  # the note's date: the first of these it has
# "[[target]]", "[[target|label]]", "![[embedded.png]]": the words a reader sees
WIKILINK = re.compile(r"!?\[\[([^\[\]|#^]*)(?:[#^][^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")


@dataclass
class Meta:
    """What the front matter (or Logseq properties) said; ``start`` is where the note's text begins."""

    start: int = 0
    title: str = ""
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    date: float | None = None  # seconds since the epoch, UTC
    problem: str | None = None  # a malformed block: why (the note is still read, as text)


def read_meta(text: str) -> Meta:
    block = FRONT_MATTER.match(text)  # a '---' block that never closes is a rule, not front matter
    if block is None:
        return _logseq(text)
    import yaml  # here, not at the top: a notebook without front matter never needs it

    meta = Meta(start=block.end())
    try:
        # safe_load's loader, in C where PyYAML was built with libyaml (a vault of thousands of notes)
        data = yaml.load(block.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +1 for 0-based, +1 for the '---'
        reason = getattr(error, "problem", None) or "not valid YAML"
        return Meta(start=0, problem=f"malformed front matter ({reason}{where}): read as text")
    except (ValueError, TypeError, OverflowError, RecursionError) as error:  # date: 2024-13-45, [[[[... nested
        reason = "nested too deep" if isinstance(error, RecursionError) else " ".join(str(error).split())[:80]
        return Meta(start=0, problem=f"malformed front matter ({reason}): read as text")
    if data is None:
        return meta
    if not isinstance(data, dict):
        return Meta(start=0, problem=f"malformed front matter (a YAML {type(data).__name__}, not a mapping): read as text")
    fields = {str(k).lower(): v for k, v in data.items()}
    title = fields.get("title")
    meta.title = " ".join(str(title).split()) if isinstance(title, (str, int, float)) else ""
    meta.aliases = _strings(fields.get("aliases", fields.get("alias")))
    meta.tags = [t.lstrip("#") for t in _strings(fields.get("tags", fields.get("tag")), split_spaces=True)]
    meta.date = next((d for d in (_epoch(fields.get(k)) for k in DATE_KEYS) if d is not None), None)
    return meta


def journal_date(rel: str) -> float | None:
    """A Logseq or daily-notes journal's day from its file name (journals/2024_03_01.md, 2024-03-01.md)."""
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    m = JOURNAL_NAME.search(stem)
    return _epoch(f"{m.group(1)}-{m.group(2)}-{m.group(3)}") if m else None


def link_words(text: str) -> str:
    """Wikilinks as their words: [[garden/Slugs]] -> "Slugs", [[target|label]] -> "label target"."""
    def words(m: re.Match) -> str:
        target = (m.group(1) or "").rsplit("/", 1)[-1]
        if "." in target and not target.endswith((".md", ".markdown")):
            return ""  # an embedded attachment (![[photo.png]]): no words
        target = re.sub(r"\.(md|markdown)$", "", target)
        return f"{m.group(2)} {target}".strip() if m.group(2) else target

    return WIKILINK.sub(words, text)


def _logseq(text: str) -> Meta:
    """Logseq page properties: ``key:: value`` lines at the very top."""
    meta = Meta()
    offset = 0
    for line in text.split("\n"):
        m = LOGSEQ_PROPERTY.match(line.strip().lstrip("- ").strip())
        if not m:
            break
        offset += len(line) + 1
        key, value = m.group(1).lower(), m.group(2).strip()
        if key == "title":
            meta.title = value
        elif key in ("alias", "aliases"):
            meta.aliases += [v.strip().strip("[]") for v in value.split(",") if v.strip().strip("[]")]
        elif key in ("tags", "tag"):
            meta.tags += [v.strip().strip("[]#") for v in value.split(",") if v.strip().strip("[]#")]
        elif key in DATE_KEYS and meta.date is None:
            meta.date = _epoch(value)
    meta.start = min(offset, len(text)) if offset else 0
    return meta


def _strings(value, split_spaces: bool = False) -> list[str]:
    """A YAML value as a list of strings: a list, or one string (comma-separated; tags also by spaces)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    elif isinstance(value, (str, int, float)):
        text = str(value)
        items = re.split(r"\s*,\s*" if "," in text or not split_spaces else r"\s+", text)
    else:
        return []
    return [" ".join(i.split()) for i in items if i.strip()]


def _epoch(value) -> float | None:
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        return moment.timestamp()
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc).timestamp()
    if isinstance(value, str):
        text = value.strip().replace("_", "-")
        try:
            return _epoch(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            try:
                return _epoch(dt.date.fromisoformat(text[:10]))
            except ValueError:
                return None
    return None
