"""The vector cache, pinned with the real local model and real files: what is embedded again, and when.

Vectors are keyed by (model id, sha256 of the embedded text): one edit re-embeds one note, another
model id invalidates every vector, and a write killed midway leaves the old file or the new one.
A bad cache file is discarded with one notice and never raises; an unusable cache folder means no
persistence, one notice, and search still answering by meaning.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from engines.answer import RESEMBLANCE, collect
from engines.embed.base import EmbedderInfo
from engines.embed.cache import DIGEST, MAGIC, VERSION, VectorCache, text_key
from engines.embed.llama import LlamaEmbedder
from engines.notes.chunks import note_texts, passages, whole
from engines.notes.engine import NotesEngine

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"
SLUGS = "garden/cold-frames/slugs.md"
SNAILS = "protecting young plants from snails"
BREAD_QUERY = "baking a loaf of bread at home"
BREAD_NOTE = ("# Sourdough loaf\n\nFlour, water and salt, with the starter fed the night before; a long cold proof "
              "in the fridge, then baked hot in the cast iron pot.\n")



class OtherModelId(LlamaEmbedder):
    """The real model, under another model id: as if the GGUF had been swapped for another one."""

    def info(self) -> EmbedderInfo:
        real = super().info()
        return EmbedderInfo(model_id=real.model_id + "-retrained", dims=real.dims, floor=real.floor)


def small_notebook(folder: Path) -> Path:
    """Three notes, the slugs note among them: enough for the semantic tier, seconds to embed cold."""
    (folder / "garden" / "cold-frames").mkdir(parents=True)
    shutil.copy(DEMO / SLUGS, folder / SLUGS)
    shutil.copy(DEMO / "garden" / "compost.md", folder / "garden" / "compost.md")
    shutil.copy(DEMO / "workshop" / "varnish.md", folder / "varnish.md")
    return folder


def build(root: Path, embedder, cache_dir: Path) -> NotesEngine:
    engine = NotesEngine(root, embedder=embedder, cache_dir=str(cache_dir), wait_for_index=True)
    state = engine.build_index()
    assert state.state == "ready", state
    return engine


def all_passages(engine: NotesEngine) -> set[str]:
    """Every text the index embeds: each note's passages and its whole text."""
    return {p for note in engine.notes for p in note_texts(note)}


def note(engine: NotesEngine, note_id: str):
    return next(n for n in engine.notes if n.id == note_id)


def ask(engine, query, limit=10, tiers=None):
    return collect("notes", query, engine.search(query, limit=limit, tiers=tiers))


# -- one edit, one note ----------------------------------------------------------------------------
def test_one_edit_re_embeds_one_note(tmp_path, embedder):
    corpus, cache = tmp_path / "notes", tmp_path / "cache"
    shutil.copytree(DEMO, corpus)

    a = build(corpus, embedder, cache)
    before = all_passages(a)
    assert sorted(a.semantic.embedded_texts) == sorted(before), "a cold build embeds every passage once"
    old_slugs = passages(note(a, SLUGS))
    a.close()

    # Change one paragraph of one note; its title and its other passage stay as they were.
    path = corpus / SLUGS
    text = path.read_text(encoding="utf-8")
    assert "copper tape" in text
    path.write_text(text.replace("copper tape", "sheep's wool pellets"), encoding="utf-8")

    b = build(corpus, embedder, cache)
    new_slugs = passages(note(b, SLUGS))
    changed = [p for p in new_slugs if p not in before]
    assert len(changed) == 1 and len(new_slugs) == len(old_slugs) == 3, (old_slugs, new_slugs)
    assert "sheep's wool pellets" in changed[0]
    new_whole = whole(note(b, SLUGS))
    assert sorted(b.semantic.embedded_texts) == sorted(changed + [new_whole]), \
        "only the edited passage of the edited note is embedded, and that note's whole text"
    assert b.semantic.notices() == []
    b.close()

    c = build(corpus, embedder, cache)
    assert c.semantic.embedded_texts == [], "a third build finds every passage in the cache"
    c.close()


# -- another model -----------------------------------------------------------------------------------
def test_another_model_id_invalidates_every_vector(tmp_path):
    folder = tmp_path / "vectors"
    keys = [text_key(f"passage {i}") for i in range(50)]
    vectors = np.random.default_rng(1).standard_normal((50, 16)).astype(np.float32)
    a = VectorCache("model-a", 16, scope="corpus", directory=folder)
    a.put_many(keys, vectors)
    assert a.save() is True

    b = VectorCache("model-b", 16, scope="corpus", directory=folder)
    assert len(b) == 0 and all(b.get(k) is None for k in keys), "another model's vectors are never served"
    assert b.notices == []
    b.put_many(keys[:3], -vectors[:3])
    assert b.save() is True

    again = VectorCache("model-a", 16, scope="corpus", directory=folder)
    assert again.notices == [] and len(again) == 50
    assert np.array_equal(np.stack([again.get(k) for k in keys]), vectors), "model A keeps its own vectors"

    # Model ids that map to the same file name still never share vectors: the header names the model.
    under_score = VectorCache("model_c", 16, scope="corpus", directory=folder)
    under_score.put_many(keys, vectors)
    assert under_score.save()
    twin = VectorCache("model c", 16, scope="corpus", directory=folder)
    assert twin.path == under_score.path
    assert len(twin) == 0 and len(twin.notices) == 1 and "another model" in twin.notices[0]


def test_another_model_id_re_embeds_everything_at_engine_level(tmp_path, embedder):
    corpus, cache = small_notebook(tmp_path / "notes"), tmp_path / "cache"
    first = build(corpus, embedder, cache)
    everything = sorted(all_passages(first))
    assert sorted(first.semantic.embedded_texts) == everything

    other = OtherModelId()
    assert other.info().model_id != embedder.info().model_id
    second = build(corpus, other, cache)
    assert sorted(second.semantic.embedded_texts) == everything, "another model id embeds every passage again"

    # Each model keeps its own file: neither run evicted the other's vectors.
    assert build(corpus, embedder, cache).semantic.embedded_texts == []
    assert build(corpus, OtherModelId(), cache).semantic.embedded_texts == []


# -- killed midway -----------------------------------------------------------------------------------
# Shared by the writer child and the checking parent: generation g is a deterministic set of keys
# (shifted by g, so keys come and go between saves) and vectors (column 0 says g).
GENERATION = """
import numpy as np
from engines.embed.cache import text_key
ROWS, DIMS, SHIFT = 20_000, 384, 500
KEYS = [text_key(f"passage {i}") for i in range(ROWS + 2 * SHIFT)]

def generation(g):
    off = (g % 3) * SHIFT
    matrix = np.random.default_rng(g).standard_normal((ROWS, DIMS), dtype=np.float32)
    matrix[:, 0] = g
    return KEYS[off:off + ROWS], matrix
"""

WRITER = GENERATION + """
import sys
from engines.embed.cache import VectorCache
folder, g, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cache = VectorCache("kill-test", DIMS, scope="kill", directory=folder)
with open(log, "a", buffering=1) as out:
    while True:
        keys, matrix = generation(g)
        cache.put_many(keys, matrix)
        out.write(f"saving {g}\\n")
        cache.save(keep=keys)
        out.write(f"saved {g}\\n")
        g += 1
"""

_shared: dict = {}
exec(GENERATION, _shared)


def _log_state(log: Path) -> tuple[int | None, int | None]:
    saving = saved = None
    for line in log.read_text().split("\n")[:-1]:  # whole lines only
        word, _, g = line.partition(" ")
        if word == "saving":
            saving = int(g)
        elif word == "saved":
            saved = int(g)
    return saving, saved


def test_a_write_killed_midway_leaves_a_readable_cache(tmp_path):
    folder, log = tmp_path / "vectors", tmp_path / "writer.log"
    log.write_text("")
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    next_generation, killed_mid_write = 0, 0
    for round_no in range(6):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(folder), str(next_generation), str(log)],
                                 cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while _log_state(log)[1] is None or _log_state(log)[1] < next_generation:  # this round saved once
                assert child.poll() is None, child.stderr.read().decode()
                assert time.monotonic() < deadline, "the writer never saved"
                time.sleep(0.01)
            if round_no % 2 == 0:  # the moment a temp file appears: inside a write, for certain
                while not any(p.name.endswith(".tmp") for p in folder.iterdir()):
                    assert child.poll() is None and time.monotonic() < deadline, "no temp file ever appeared"
                    time.sleep(0.001)
                time.sleep(rng.uniform(0, 0.02))
            else:  # any moment: computing, writing, renaming
                time.sleep(rng.uniform(0, 0.6))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            child.stderr.close()
        saving, saved = _log_state(log)
        leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
        killed_mid_write += bool(leftovers)

        cache = VectorCache("kill-test", _shared["DIMS"], scope="kill", directory=folder)
        where = f"(seed {seed}, round {round_no}, log saving={saving} saved={saved}, temp files {leftovers})"
        assert cache.notices == [], where
        assert len(cache) == _shared["ROWS"], where
        some = cache.get(_shared["KEYS"][_shared["SHIFT"] * 2])  # a key every generation holds
        g = int(some[0])
        assert g in {saving, saved}, f"loaded generation {g} is neither the old nor the new file {where}"
        keys, matrix = _shared["generation"](g)
        assert all(k in cache for k in keys), where
        assert np.array_equal(np.stack([cache.get(k) for k in keys]), matrix), f"torn vectors {where}"
        next_generation = saving + 1

    # Only temp files beside the one cache file; they never counted as the cache.
    names = {p.name for p in folder.iterdir()}
    assert {n for n in names if not n.endswith(".tmp")} == {cache.path.name}
    assert killed_mid_write >= 1, f"no kill landed inside a write (seed {seed})"


# -- bad cache files ---------------------------------------------------------------------------------
def _rewrite_checksum(data: bytes) -> bytes:
    body = data[:-DIGEST]
    return body + hashlib.sha256(body).digest()


DAMAGE = {
    "a flipped byte": lambda d: d[:200] + bytes([d[200] ^ 0xFF]) + d[201:],
    "truncated": lambda d: d[: len(d) // 2],
    "another version": lambda d: _rewrite_checksum(d[: len(MAGIC)] + bytes([VERSION + 1]) + d[len(MAGIC) + 1:]),
    "a foreign file": lambda d: b"these are my notes, not a cache\n" * 10,
    "an empty file": lambda d: b"",
    "another dims": None,  # same model id, vectors of another width
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_bad_cache_file_is_discarded_with_one_notice_and_rewritten(tmp_path, damage):
    folder = tmp_path / "vectors"
    keys = [text_key(f"text {i}") for i in range(10)]
    old = np.random.default_rng(2).standard_normal((10, 8)).astype(np.float32)
    good = VectorCache("model", 8, scope="s", directory=folder)
    good.put_many(keys, old)
    assert good.save()
    if DAMAGE[damage] is None:
        wide = VectorCache("model", 12, scope="s", directory=tmp_path / "wide")
        wide.put_many(keys, np.ones((10, 12), np.float32))
        wide.save()
        assert wide.path.name == good.path.name
        shutil.copy(wide.path, good.path)
    else:
        good.path.write_bytes(DAMAGE[damage](good.path.read_bytes()))

    cache = VectorCache("model", 8, scope="s", directory=folder)  # never raises
    assert len(cache) == 0
    assert len(cache.notices) == 1, cache.notices
    assert str(cache.path) in cache.notices[0]

    new = -old
    cache.put_many(keys, new)
    assert cache.save() is True
    assert len(cache.notices) == 1, "the rewrite itself says nothing more"
    fresh = VectorCache("model", 8, scope="s", directory=folder)
    assert fresh.notices == []
    assert np.array_equal(np.stack([fresh.get(k) for k in keys]), new)


def test_a_cache_cut_short_keeps_every_whole_row_and_embeds_only_what_was_cut(tmp_path, embedder):
    corpus, cache = small_notebook(tmp_path / "notes"), tmp_path / "cache"
    build(corpus, embedder, cache).close()
    (vec,) = cache.glob("*.vec")
    vec.write_bytes(vec.read_bytes()[:-1024])  # 1 KB: part of the last row's 1,536 bytes

    engine = build(corpus, embedder, cache)
    assert len(engine.semantic.notices()) == 1, engine.semantic.notices()
    assert "1 of" in engine.semantic.notices()[0] and "the rest kept" in engine.semantic.notices()[0]
    assert len(engine.semantic.embedded_texts) == 1, "only the row that was cut is embedded again"
    hits = [h for h in ask(engine, SNAILS).hits if h.id == SLUGS]
    assert hits and hits[0].tier == "semantic"
    assert build(corpus, embedder, cache).semantic.embedded_texts == [], "the next save wrote a good file"


def test_an_unusable_cache_folder_means_no_persistence_one_notice_and_search_still_works(tmp_path, embedder):
    corpus = small_notebook(tmp_path / "notes")
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("not a folder\n")  # mkdir under it fails, even as root

    engine = build(corpus, embedder, blocker)
    answer = ask(engine, SNAILS)
    hits = [h for h in answer.hits if h.id == SLUGS]
    assert hits and hits[0].tier == "semantic" and hits[0].marker == RESEMBLANCE, answer
    assert answer.tier("semantic").status == "answered"
    assert blocker.read_text() == "not a folder\n"
    notices = engine.semantic.notices()
    assert len(notices) == 1, f"expected one notice for one problem, got {notices}"
    assert "without persistence" in notices[0]


# -- never a wrong vector ----------------------------------------------------------------------------
def test_a_key_is_the_hash_of_exactly_the_text(tmp_path):
    assert text_key("the slugs got the seedlings") == text_key("the slugs got the seedlings")
    assert text_key("the slugs got the seedlings") == hashlib.sha256(b"the slugs got the seedlings").digest()
    variants = ["the slugs got the seedlings", "the slugs got the seedlings ", "The slugs got the seedlings",
                "the slugs got the seedling", ""]
    assert len({text_key(t) for t in variants}) == len(variants)
    cache = VectorCache("model", 4, directory=tmp_path)
    cache.put_many([text_key(variants[0])], np.ones((1, 4), np.float32))
    assert all(cache.get(text_key(t)) is None for t in variants[1:])


def test_an_edited_note_scores_as_its_new_text_never_its_old_vector(tmp_path, embedder):
    corpus, cache = small_notebook(tmp_path / "notes"), tmp_path / "cache"
    before = build(corpus, embedder, cache)
    assert any(h.id == SLUGS for h in ask(before, SNAILS).hits), "the old text answers the snails query"
    before.close()

    (corpus / SLUGS).write_text(BREAD_NOTE, encoding="utf-8")
    engine = build(corpus, embedder, cache)
    new_passages = note_texts(note(engine, SLUGS))
    assert sorted(engine.semantic.embedded_texts) == sorted(new_passages)

    answer = ask(engine, BREAD_QUERY, tiers=("exact", "semantic"))  # meaning alone: the vectors are the point
    hits = [h for h in answer.hits if h.id == SLUGS]
    assert hits and hits[0].tier == "semantic", answer
    query = embedder.embed([BREAD_QUERY], "query")[0]
    # the row's passage cosine (the floor's measure) is the new text's best passage; its score ranks it (issue 61)
    fresh = float((embedder.embed(passages(note(engine, SLUGS)), "document") @ query).max())
    assert hits[0].extras["passage"] == pytest.approx(fresh, abs=2e-3)
    assert all(h.id != SLUGS for h in ask(engine, SNAILS).hits), "the old text's vector is not served"


# -- losing only what was damaged (issue 39) ---------------------------------------------------------
def _saved(folder, rows=50, dims=8):
    keys = [text_key(f"text {i}") for i in range(rows)]
    matrix = np.random.default_rng(3).standard_normal((rows, dims)).astype(np.float32)
    cache = VectorCache("model", dims, scope="s", directory=folder)
    cache.put_many(keys, matrix)
    assert cache.save()
    return cache.path, keys, matrix


def test_a_corrupt_row_in_the_middle_costs_that_row_alone_and_the_next_save_makes_the_file_whole(tmp_path):
    path, keys, matrix = _saved(tmp_path)
    data = bytearray(path.read_bytes())
    data[-(50 - 20) * 8 * 4 + 5] ^= 0xFF  # a byte of row 20's vector
    path.write_bytes(bytes(data))

    cache = VectorCache("model", 8, scope="s", directory=tmp_path)
    assert [k in cache for k in keys] == [i != 20 for i in range(50)]
    assert np.array_equal(cache.get_many(keys[:20] + keys[21:]), np.delete(matrix, 20, axis=0))
    assert len(cache.notices) == 1 and "1 of 50 vectors" in cache.notices[0]
    cache.put_many([keys[20]], matrix[20:21])
    assert cache.save()
    fresh = VectorCache("model", 8, scope="s", directory=tmp_path)
    assert fresh.notices == [] and np.array_equal(fresh.get_many(keys), matrix)


def test_a_version_1_file_is_still_read_whole_and_written_as_version_2(tmp_path):
    keys = [text_key(f"text {i}") for i in range(5)]
    matrix = np.arange(40, dtype=np.float32).reshape(5, 8)
    header = json.dumps({"model_id": "model", "dims": 8, "count": 5}).encode()
    body = MAGIC + bytes([1]) + struct.pack("<I", len(header)) + header + b"".join(keys) + matrix.tobytes()
    cache = VectorCache("model", 8, scope="s", directory=tmp_path)
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cache.path.write_bytes(body + hashlib.sha256(body).digest())

    old = VectorCache("model", 8, scope="s", directory=tmp_path)
    assert old.notices == [] and np.array_equal(old.get_many(keys), matrix)
    old.put_many([text_key("one more")], np.ones((1, 8), np.float32))
    assert old.save()
    assert old.path.read_bytes()[len(MAGIC)] == VERSION == 2
    assert np.array_equal(VectorCache("model", 8, scope="s", directory=tmp_path).get_many(keys), matrix)
