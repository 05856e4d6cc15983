"""Meaning first for the notes a query is about: while the model's index builds, the notes the words and
static tiers rank highest for the query asked are embedded by the model before the rest.

A cold notebook's contextual index (MiniLM) takes seconds at 37 notes and hours at 100,000 on 2 cores;
the static vectors stand in meanwhile (static_first.py), and they rank, rarely prove: on the demo the
distilled table puts "The slugs got the seedlings last year" second for "protecting young plants from
snails", under its weak bound, so a cold one-shot answered "(no matches)". So a search while the index
builds names its candidates (``prefer``): their passages go to the front of the build's queue (the
workbench: its next answer has them). A one-shot (``olai-tui search``: a deadline, ``answer_by``) has no
build running beside it to wait on: it embeds its candidates itself (``embed_now``), then, where time is
left and little is, the rest of the notebook (the 37-note demo), and keeps what it embedded.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from engines.embed.index_state import embedding_order
from engines.embed.retry import embed_checked

CANDIDATES = 10  # from each of the static and the words rankings: ~20 notes, ~60 passages
NOW_BATCH = 16  # passages per embed call in a one-shot: its deadline is looked at between them
# A one-shot finishes the whole notebook's model vectors where no more than this many passages are left
# (the demo: 132) and time allows; more is left to `olai-tui index notes` or the background build.
FINISH_AT_MOST = 256


class FirstNotes:
    """For an index with ``_lock``, ``_keys`` (NoteKeys), ``_texts``, ``_cache`` and ``_version``
    (semantic.SemanticIndex): the keys a query asked for embedded first."""

    _first: tuple[bytes, ...] = ()

    def prefer(self, notes: Sequence[int]) -> list[bytes]:
        """Put these notes' passages not yet embedded at the front of the build's queue; the keys put there."""
        with self._lock:
            cache = self._cache
            keys = [k for i in notes for k in self._keys[i]]
            held = cache.held(keys) if cache is not None and keys else [False] * len(keys)
            first = tuple(dict.fromkeys(k for k, h in zip(keys, held) if not h))
            if first and first != self._first:
                self._first = first
                self._version += 1  # the build takes its queue again, these first
            return list(first)

    def embed_now(self, notes: Sequence[int], deadline: float) -> int:
        """Embed these notes' missing passages here, by the model, in small batches until ``deadline``
        (time.monotonic), landing each batch as the build does; how many passages were embedded.
        Raises what the embedder raises (EmbedderUnavailable)."""
        cache = self._open_cache()
        with self._lock:
            keys = [k for i in notes for k in self._keys[i]]
            held = cache.held(keys) if keys else []
            todo = list(dict.fromkeys(k for k, h in zip(keys, held) if not h))
            texts = dict(self._texts)
        missing = [k for k in todo if k not in texts]
        if missing:  # not kept (the notes came before the cache opened): cut from the notes again
            from engines.notes.chunks import note_texts

            for i in notes:
                for key, text in zip(self._keys[i], note_texts(self._notes[i])):
                    texts.setdefault(key, text)
        done = 0
        for at in range(0, len(todo), NOW_BATCH):
            if time.monotonic() >= deadline:
                break
            batch = [k for k in todo[at:at + NOW_BATCH] if k in texts]
            vectors = embed_checked(self.embedder, [texts[k] for k in batch], cache.dims, self.retry, self._stop)
            with self._lock:
                cache.put_many(batch, vectors)
                for k in batch:
                    self._texts.pop(k, None)
                self._landed(batch)
                self._version += 1
                self.embedded_texts.record([texts[k] for k in batch])
            done += len(batch)
        return done

    def keep_embedded(self) -> None:
        """What ``embed_now`` embedded, kept: the index made ready (saved, its floor measured) where
        nothing is left, else the cache saved where no other process builds it."""
        if not self.pending_passages():
            self.build()
            return
        cache = self._cache
        if cache is not None and cache.lead(journal=self.journalled):
            try:
                cache.save()
            finally:
                cache.let_go()

    def pending_passages(self) -> int:
        with self._lock:
            return len(self._missing())

    def _embedding_order(self, keys: list[bytes]) -> list[bytes]:
        first = [k for k in self._first if k in self._texts]
        if not first:
            return embedding_order(keys, self._texts)
        taken = set(first)
        return embedding_order([k for k in keys if k not in taken], self._texts) + first[::-1]  # popped from the end


def candidates(meaning, words, depth: int = CANDIDATES) -> list[int]:
    """The notes (indices into ``meaning.notes``) the static-standing ranking and the words ranking put
    first, taken from each in turn (meaning's all first where the words hold no evidence), those with the
    model's vectors already left out."""
    from_static = getattr(meaning, "from_static", None)
    by_meaning = meaning.head(depth).tolist()
    by_words = []
    if words is not None:
        for w in words.head(depth).tolist():
            m = meaning.index_of.get(words.notes[w].id)
            if m is not None:
                by_words.append(m)
    if words is None or not len(words.shown()):
        # no note holds enough of the query's words (only single shared ones): its answer is meaning's, in
        # meaning's order (fill_rows.meaning_orders), so meaning's candidates go to the model first. Taken in
        # turn with the words', the slugs note (third by the static table) came fifth, after two notes that
        # share only "plants", and a loaded one-shot embedded four.
        order = by_meaning + by_words
    else:
        order = [m for pair in zip(by_meaning + [None] * depth, by_words + [None] * depth) for m in pair]
    out: dict[int, None] = {}
    for m in order:
        if m is not None and (from_static is None or from_static[m] or meaning.rank[m] == -np.inf):
            out[m] = None
    return list(out)
