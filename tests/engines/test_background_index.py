"""The one background-index lifecycle (engines/embed/background_index.py) on its own, with a small
subclass and a numpy embedder: what notes, code and products rely on without each testing it."""

from __future__ import annotations

import hashlib
import threading
import time

import numpy as np

from engines.embed.background_index import BackgroundIndex, LazyVectors
from engines.embed.base import EmbedderInfo, EmbedderUnavailable
from engines.embed.cache import text_key
from engines.embed.retry import RetryPolicy


class HashEmbedder:
    """Unit vectors from each text's sha256: no model, the same vector for the same text."""

    def __init__(self, unavailable: bool = False, hold: threading.Event | None = None) -> None:
        self.unavailable = unavailable
        self.hold = hold
        self.embedded: list[str] = []
        self.info_calls = 0

    def info(self) -> EmbedderInfo:
        self.info_calls += 1
        if self.unavailable:
            raise EmbedderUnavailable("no model here", "install one")
        return EmbedderInfo("hash-8", 8, 0.1)

    def embed(self, texts, kind):
        if self.hold is not None:
            self.hold.wait(timeout=30)
        self.embedded.extend(texts)
        out = np.array([[b - 127.5 for b in hashlib.sha256(t.encode()).digest()[:8]] for t in texts], np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class Lines(BackgroundIndex):
    """One vector per line of text: the smallest index the base serves."""

    embed_batch = 2

    def set_lines(self, lines: list[str]) -> None:
        with self._lock:
            self.keys = [text_key(t) for t in lines]
            self._texts = {k: t for k, t in zip(self.keys, lines) if self._cache is None or k not in self._cache}
            self._version += 1

    def _counts(self) -> tuple[int, int]:
        cache = self._cache
        return (0 if cache is None else sum(1 for k in self.keys if k in cache)), len(self.keys)

    def _all_keys(self) -> set[bytes]:
        return set(self.keys)


def test_a_build_embeds_each_text_once_and_a_second_build_nothing(tmp_path):
    embedder = HashEmbedder()
    index = Lines(embedder, scope="lines", cache_dir=str(tmp_path))
    index.set_lines(["a", "b", "c", "b"])
    seen: list[tuple[int, int]] = []
    state = index.build(progress=lambda done, of: seen.append((done, of)))
    assert (state.state, state.done, state.of) == ("ready", 4, 4)
    assert sorted(embedder.embedded) == ["a", "b", "c"], "a text said twice is embedded once"
    assert seen and seen[-1] == (4, 4), "progress reaches done == of"
    index.set_lines(["a", "b", "c", "d"])
    assert index.build().state == "ready" and embedder.embedded[-1:] == ["d"], "an edit embeds only what is new"

    again = Lines(HashEmbedder(), scope="lines", cache_dir=str(tmp_path))
    again.set_lines(["a", "b", "c", "d"])
    assert again.build().state == "ready" and again.embedded_texts == [], "the saved cache answers a second process"


def test_start_builds_in_a_thread_stop_ends_it_and_an_index_up_to_date_starts_none(tmp_path):
    hold = threading.Event()
    index = Lines(HashEmbedder(hold=hold), scope="lines", cache_dir=str(tmp_path))
    index.set_lines([f"line {i}" for i in range(10)])
    index.start()
    thread = index._thread
    assert thread is not None and thread.is_alive()
    index.start()
    assert index._thread is thread, "one build thread at a time"
    hold.set()
    thread.join(timeout=30)
    assert index.build().state == "ready"
    index.start()
    assert index._thread is thread, "nothing pending: no new thread"
    index.stop()


def test_an_unavailable_model_is_said_and_not_tried_again_inside_the_cooldown(tmp_path):
    embedder = HashEmbedder(unavailable=True)
    index = Lines(embedder, scope="lines", cache_dir=str(tmp_path))
    index.retry = RetryPolicy(cooldown_s=0.2)
    index.set_lines(["a", "b"])
    state = index.build()
    assert (state.state, state.reason, state.enable, state.of) == ("unavailable", "no model here", "install one", 2)
    assert index.build().state == "unavailable" and embedder.info_calls == 1, "inside the cooldown: no new try"
    index.start()
    assert index._thread is None, "nor a background build"
    time.sleep(0.25)
    embedder.unavailable = False
    assert index.build().state == "ready" and embedder.info_calls == 2, "after the cooldown it is tried again"


class Engine(LazyVectors):
    name = "lines"
    item_noun = "lines"

    def __init__(self, embedder, cache_dir: str) -> None:
        self._embedder, self._vectors, self._lock, self.made = embedder, None, threading.Lock(), 0
        self.cache_dir = cache_dir

    def _new_index(self) -> Lines:
        self.made += 1
        index = Lines(self.embedder, scope="lines", cache_dir=self.cache_dir)
        index.set_lines(["x", "y"])
        return index


def test_the_index_is_made_once_on_first_use_and_close_stops_it(tmp_path):
    engine = Engine(HashEmbedder(), str(tmp_path))
    engine.close()  # nothing made yet: nothing to stop, and nothing is made
    assert engine._vectors is None and engine.made == 0
    assert engine.vectors is engine.semantic and engine.made == 1
    state = engine.build_index()
    assert engine.index_summary(state) == "2 lines, 2 embedded now"
    engine.close()
    assert engine._vectors._stop.is_set()


class CountedLines(Lines):
    """Lines that count how often the build asks which keys are pending and counts what is done."""

    pending_asked = 0
    counted = 0

    def _pending(self) -> list[bytes]:
        self.pending_asked += 1
        return super()._pending()

    def _counts(self) -> tuple[int, int]:
        self.counted += 1
        return super()._counts()


def test_a_large_build_asks_what_is_pending_once_not_once_a_batch(tmp_path):
    # At 100,000 notes the pending keys (300,000) were scanned and sorted again for every batch of 64:
    # more work than the batch's embedding. Once a pass, and again only when the items change.
    index = CountedLines(HashEmbedder(), scope="lines", cache_dir=str(tmp_path))
    index.set_lines([f"line {i} " + "x" * (i % 7) for i in range(400)])  # 200 batches of 2
    seen: list[tuple[int, int]] = []
    assert index.build(progress=lambda done, of: seen.append((done, of))).state == "ready"
    assert index.pending_asked <= 3, index.pending_asked
    assert index.counted < 50, "done/of is counted for progress a few times a second, not every batch"
    assert seen[-1] == (400, 400)
    lengths = [len(t) for t in index.embedded_texts]
    assert lengths == sorted(lengths), "shortest first, as before: similar lengths share a batch"


def test_an_edit_while_a_batch_embeds_is_seen_by_the_next_batch(tmp_path):
    hold = threading.Event()
    embedder = HashEmbedder(hold=hold)
    index = Lines(embedder, scope="lines", cache_dir=str(tmp_path))
    index.set_lines([f"old {i}" for i in range(6)])
    result = []
    builder = threading.Thread(target=lambda: result.append(index.build()))
    builder.start()
    time.sleep(0.2)  # the first batch is inside embed(), waiting on hold
    index.set_lines(["old 0", "old 1", "new line"])  # old 2..5 gone, one new line
    hold.set()
    builder.join(timeout=30)
    assert "new line" in embedder.embedded, "the edit's new text was embedded in the same build"
    assert not {"old 4", "old 5"} & set(embedder.embedded), "a text dropped by the edit is not embedded"
    assert (result[0].state, result[0].done, result[0].of) == ("ready", 3, 3)


def test_the_notes_index_keeps_its_done_count_as_batches_land_not_by_counting_every_note(tmp_path, monkeypatch):
    # At 100,000 notes a count looked up every key of every note (~80 ms holding the interpreter), and
    # progress and the workbench's footer asked several times a second while the index built.
    from engines.notes.corpus import Note
    from engines.notes.semantic import SemanticIndex

    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"body {i % 40} of note {i}" + (" twice" if i % 7 else ""),
                  where=f"n{i}.md", path=f"/v/n{i}.md") for i in range(300)]
    notes.append(notes[3])  # the same note twice: its keys are waited on by both
    index = SemanticIndex(HashEmbedder(), scope="done-count", cache_dir=str(tmp_path))
    recounts = []
    real = SemanticIndex._recount
    monkeypatch.setattr(SemanticIndex, "_recount", lambda self: recounts.append(1) or real(self))
    index.set_notes(notes)
    seen: list[tuple[int, int]] = []

    def progress(done, of):
        cache = index._cache
        counted = sum(1 for keys in index._keys if all(k in cache for k in keys))
        seen.append((done, counted))

    state = index.build(progress=progress)
    assert state.state == "ready" and state.done == state.of == len(notes)
    assert seen and all(done == counted for done, counted in seen), seen
    assert len(recounts) <= 3, f"counted every note {len(recounts)} times"
    index.set_notes(notes[:-1] + [Note(id="new.md", title="New", body="a new note", where="new.md", path="/v/new.md")])
    assert index.state().done == len(notes) - 1, "the new note waits on its vectors"


def test_the_notes_index_appends_notes_as_they_become_ready_and_ranks_as_a_full_stack_would(tmp_path, monkeypatch):
    # Restacking every ready note's vectors whenever a batch completed one looked up every key of
    # 100,000 notes under the index's lock, on the searching thread: each vector is appended once.
    from engines.notes.chunks import note_texts
    from engines.notes.corpus import Note
    from engines.notes.floor import ProbeFloors
    from engines.embed.rows import AppendedRows
    from engines.notes.semantic import SemanticIndex

    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"body {i % 40} of note {i}" + (" twice" if i % 7 else ""),
                  where=f"n{i}.md", path=f"/v/n{i}.md") for i in range(300)]
    embedder = HashEmbedder()
    index = SemanticIndex(embedder, scope="appended", cache_dir=str(tmp_path))
    index.embed_batch = 16
    import engines.notes.semantic as semantic

    monkeypatch.setattr(semantic, "RESCORED", 20)  # most of the 300 notes scored in int8 alone
    import engines.embed.index_state as index_state
    monkeypatch.setattr(index_state, "PROGRESS_EVERY_S", 0.0)  # a look after every batch
    appended = []
    real_extend = AppendedRows.extend
    monkeypatch.setattr(AppendedRows, "extend", lambda self, rows: appended.append(len(rows)) or real_extend(self, rows))
    measured = []
    real_measure = ProbeFloors.measure
    monkeypatch.setattr(ProbeFloors, "measure", lambda self, m, keys, save: measured.append(len(m)) or real_measure(self, m, keys, save))
    monkeypatch.setattr(ProbeFloors, "probe_vectors", lambda self: embedder.embed(["a probe", "another"], "query"))
    index.set_notes(notes)
    query = embedder.embed(["note 7"], "query")[0]
    checked = []

    def progress(done, of):
        ranked = index.ranked(query)
        index.floor()
        cache = index._cache
        exact_rank = np.full(len(notes), -np.inf)
        for i, note in enumerate(notes):
            vectors = [cache.get(text_key(t)) for t in note_texts(note)]
            if any(v is None for v in vectors):
                assert ranked.rank[i] == -np.inf
                continue
            best = max(float(v @ query) for v in vectors[:-1])
            exact_rank[i] = (best + float(vectors[-1] @ query)) / 2
            # int8 rows: every score within 0.005 of float32's ...
            assert abs(ranked.best[i] - best) < 0.005 and abs(ranked.rank[i] - exact_rank[i]) < 0.005
        # ... and the head scored again from the float32 vectors the cache keeps: exact, in exact order
        live = np.flatnonzero(exact_rank > -np.inf)
        expected = live[np.lexsort((live, -exact_rank[live]))][:10]
        assert ranked.head(10).tolist() == expected.tolist()
        assert np.allclose(ranked.rank[expected], exact_rank[expected], atol=1e-6)
        checked.append(done)

    assert index.build(progress=progress).state == "ready"
    index.ranked(query)
    index.floor()
    assert len(checked) > 3 and checked[-1] == len(notes)
    passages = sum(len(note_texts(n)) - 1 for n in notes)
    assert sum(appended) == passages + len(notes), "each passage and whole-note vector appended once"
    assert measured[-1] == passages, "the complete index's floor is measured on every passage"
    assert len(measured) < len(checked), "while building, the floor is measured again only as the passages grow"
    assert index._cache._rows == {}, "once saved, the float32 vectors are in the cache's file, not in memory"
    assert all(block.dtype == np.int8 for block in index._passages._blocks + index._heads._blocks)
    from engines.embed.cache import VectorCache

    again = VectorCache(index._cache.model_id, index._cache.dims, scope="appended", directory=index._cache.directory)
    keys = index._all_keys()
    assert list(again._saved.at) == keys, "saved in the notes' order: a warm open reads the file front to back"
    for note in notes:
        texts = note_texts(note)
        assert np.array_equal(again.get_many([text_key(t) for t in texts]), embedder.embed(texts, "document"))


def test_texts_are_embedded_shortest_first_within_windows_in_the_items_order(monkeypatch):
    # Sorted by length over a whole 100,000-note vault, every title came first and no note was ready
    # (searchable by meaning) for two thirds of the build.
    import engines.embed.index_state as index_state

    monkeypatch.setattr(index_state, "QUEUE_WINDOW", 4)
    texts = {bytes([i]): "x" * n for i, n in enumerate([5, 1, 3, 1, 9, 2, 7, 2, 4])}
    order = list(reversed(index_state.embedding_order(list(texts), texts)))  # popped from the end
    assert [len(texts[k]) for k in order] == [1, 1, 3, 5, 2, 2, 7, 9, 4]
    assert order[:2] == [bytes([1]), bytes([3])], "equal lengths keep the items' order"


def test_the_notes_index_reads_its_vectors_back_warm_and_embeds_again_what_a_damaged_file_lost(tmp_path):
    from engines.notes.corpus import Note
    from engines.notes.semantic import SemanticIndex

    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"body of note {i}", where=f"n{i}.md", path=f"/v/n{i}.md")
             for i in range(40)]
    cold = SemanticIndex(HashEmbedder(), scope="warm", cache_dir=str(tmp_path))
    cold.set_notes(notes)
    assert cold.build().state == "ready"
    query = HashEmbedder().embed(["note 3"], "query")[0]
    expected = cold.ranked(query).head(10).tolist()

    embedder = HashEmbedder()
    warm = SemanticIndex(embedder, scope="warm", cache_dir=str(tmp_path))
    warm.set_notes(notes)
    assert warm.build().state == "ready" and embedder.embedded == [], "warm: nothing embedded"
    assert warm.ranked(query).head(10).tolist() == expected and warm._cache._rows == {}
    with open(warm._cache.path, "r+b") as fh:  # damaged in place under the open handle
        fh.truncate(100)
    warm.set_notes(notes)  # stacked again (as after an edit): the file cannot give its vectors back
    assert warm.ranked(query).head(10).tolist() == [], "a lost vector is never served"
    assert warm.build().state == "ready", "the lost vectors are embedded again"
    assert len(embedder.embedded) == 3 * 40 and len(warm.notices()) == 1 and "unreadable while open" in warm.notices()[0]
    assert warm.ranked(query).head(10).tolist() == expected


def test_the_record_of_embedded_texts_keeps_the_first_ones_and_counts_them_all(tmp_path, monkeypatch):
    import engines.embed.background_index as background

    monkeypatch.setattr(background, "KEPT_TEXTS", 5)
    embedder = HashEmbedder()
    index = Lines(embedder, scope="record", cache_dir=str(tmp_path))
    index.set_lines([f"line {i}" for i in range(12)])
    assert index.build().state == "ready"
    assert index.embedded_texts.count == 12 and len(index.embedded_texts) == 5, "a big build is counted, not held"
    assert index.embedded_texts == embedder.embedded[:5] and len(embedder.embedded) == 12
    engine = Engine(HashEmbedder(), str(tmp_path / "engine"))
    assert engine.index_summary(engine.build_index()) == "2 lines, 2 embedded now", "the summary counts past what is kept"
    assert len(engine.vectors.embedded_texts) == 2
    monkeypatch.setattr(background, "KEPT_TEXTS", 1)
    other = Engine(HashEmbedder(), str(tmp_path / "other"))
    assert other.index_summary(other.build_index()) == "2 lines, 2 embedded now" and len(other.vectors.embedded_texts) == 1
    other.close()
    engine.close()
    index.embedded_texts.clear()
    assert index.embedded_texts.count == 0 and index.embedded_texts == []


def test_a_floor_asked_for_by_two_threads_at_once_is_measured_once(tmp_path, monkeypatch):
    # When a build completes, its thread measures the new floor and the first search asks for it too.
    from engines.notes.corpus import Note
    from engines.notes.floor import ProbeFloors
    from engines.notes.semantic import SemanticIndex

    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"body of note {i}", where=f"n{i}.md", path=f"/v/n{i}.md")
             for i in range(40)]
    index = SemanticIndex(HashEmbedder(), scope="floor-once", cache_dir=str(tmp_path))
    index.set_notes(notes)
    assert index.build().state == "ready"
    index._floor = None  # as it is the moment a build completes
    measured: list[int] = []
    real = ProbeFloors.measure

    def slow_measure(self, *args, **kwargs):
        measured.append(1)
        time.sleep(0.3)  # long enough for the second thread to ask meanwhile
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ProbeFloors, "measure", slow_measure)
    floors = []
    threads = [threading.Thread(target=lambda: floors.append(index.floor())) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(floors) == 2 and floors[0] == floors[1]
    assert measured == [1], "the second thread measured the same floor again"


def test_the_notes_waiting_on_each_key_are_kept_without_a_container_a_key(tmp_path):
    # A list a key was 323,648 lists on the cold 100,000-note vault: every full collection of Python's
    # collector walked them, and the interface stalled while it did.
    import gc

    from engines.notes.corpus import Note
    from engines.notes.semantic import SemanticIndex

    notes = [Note(id=f"n{i}.md", title=f"Note {i}", body=f"body of note {i}", where=f"n{i}.md", path=f"/v/n{i}.md")
             for i in range(3000)]
    notes.append(notes[7])  # the same note twice: its keys are waited on by both
    index = SemanticIndex(HashEmbedder(), scope="owners", cache_dir=str(tmp_path))
    index.open_cache()
    index.set_notes(notes)
    gc.collect()
    before = len(gc.get_objects())
    assert index.state().done == 0  # counted: every key waited on
    gc.collect()
    assert len(gc.get_objects()) - before < 1000, "a container a waiting key"
    assert index.build().state == "ready" and index.state().done == len(notes)
