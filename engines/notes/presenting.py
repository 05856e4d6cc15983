"""How the notes engine is presented (engines/contract.py's presentation methods): the query's words
to mark (filters are not words of a note), the filters an answer was read as, the palette's filter
suggestions, and a person's rebuild. Mixed into :class:`~engines.notes.engine.NotesEngine`."""

from __future__ import annotations

import datetime as dt

from engines.answer import Answer, collect
from engines.contract import Presentation
from engines.notes.exact import query_words
from engines.notes.filters import might_filter, read_query


PLAIN_KINDS = {"md", "markdown", "txt", "jsonl", "olai"}


class NotesPresenting:
    # A note's preview is laid out as Markdown (a .txt note reflowed); Enter opens the file at the
    # first line holding a query word, or at an outline node's own line.
    presentation = Presentation(preview="markdown", open_at="words")

    def highlights(self, text: str) -> list[str]:
        if might_filter(text):  # the filters are not words of the note: only what is left is marked
            text = read_query(text, self.notes).words
        return query_words(text)

    def filters_said(self, answer: Answer) -> str:
        """The footer's filters: what the query's words were read as, in the syntax typed."""
        understood = answer.extras.get("understood") or {}
        said = [f"#{t}" for t in understood.get("tags") or []]
        said += [f"in:{f}" for f in understood.get("folders") or []]
        said += [f"path:{p}" for p in understood.get("paths") or []]
        said += [f"{k}:{understood[k]}" for k in ("after", "before") if understood.get(k)]
        return " · ".join(said)

    def answer_notices(self, answer: Answer) -> list[str]:
        """A word that looked like a filter but was searched as a word, said under the chips."""
        return list((answer.extras.get("understood") or {}).get("notes") or [])

    def suggestions(self, most: int = 8) -> list[tuple[str, str]]:
        """(filter, what it does) for the palette: the notebook's commonest tags and folders, and dates."""
        counts: dict[str, int] = {}
        folders: dict[str, int] = {}
        for note in self.notes:
            for tag in note.tags:
                counts[tag.casefold()] = counts.get(tag.casefold(), 0) + 1
            top = note.id.split("#", 1)[0].split("/")
            if len(top) > 1:
                folders[top[0]] = folders.get(top[0], 0) + 1
        out = [(f"#{t}", f"only notes tagged #{t} ({n})") for t, n in
               sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:most]]
        out += [(f"in:{f}", f"only notes in the folder {f}/ ({n})") for f, n in
                sorted(folders.items(), key=lambda kv: (-kv[1], kv[0]))[:most]]
        month_ago = (dt.date.today() - dt.timedelta(days=30)).isoformat()
        out += [(f"after:{month_ago}", "only notes dated in the last 30 days (front matter date, else the file's)"),
                (f"before:{dt.date.today().year}-01-01", "only notes dated before this year")]
        return out

    def kinds(self) -> dict[str, int]:
        """The files the notes come from, counted by kind (their suffix): {"org": 529, "pdf": 167, "md": 2}."""
        notes = self.notes
        cached = getattr(self, "_kinds", None)
        if cached is not None and cached[0] is notes:
            return cached[1]
        counts: dict[str, int] = {}
        for path in {note.path for note in notes}:
            kind = path.rpartition(".")[2].lower()
            counts[kind] = counts.get(kind, 0) + 1
        counts = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        self._kinds = (notes, counts)
        return counts

    def counted(self) -> str:
        """The header's count: notes as before where all are Markdown, text or outlines; with documents
        among them, the files by kind and the notes (pages and sections) they make."""
        kinds = self.kinds()
        if set(kinds) <= PLAIN_KINDS:
            return f"{len(self.notes):,} notes"
        by_kind = ", ".join(f"{n:,} {kind}" for kind, n in kinds.items())
        return f"{sum(kinds.values()):,} files ({by_kind}) as {len(self.notes):,} notes"

    def collect(self, query: str, batches) -> Answer:
        """The answer, with the corpus's files counted by kind (``kinds``) beside its rows where documents
        are among them (a notebook of Markdown, text and outlines answers as it always has)."""
        answer = collect(self.name, query, batches)
        if not set(self.kinds()) <= PLAIN_KINDS:
            answer.extras["kinds"] = self.kinds()
        return answer

    def rebuild(self) -> str:
        self.reload()
        self.start()  # the semantic index in the background, unless recall is off
        skipped = f", {len(self.problems)} files skipped" if self.problems else ""
        return f"re-read {len(self.notes):,} notes{skipped}; the index catches up in the background"


def shown_with(note) -> dict:
    """What a note's preview shows beyond its text (``Passage`` fields): tags, aliases, whether it is Markdown."""
    return {"tags": tuple(note.tags), "aliases": tuple(note.aliases), "markdown": not note.path.lower().endswith(".txt")}
