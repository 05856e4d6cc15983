"""The vector cache keeps its file's vectors in the file (engines/embed/cache.py): it holds the digests
and an open handle and reads rows when asked; only vectors embedded since the last save are in
memory. Real files throughout."""

from __future__ import annotations

import os

import numpy as np

from engines.embed.cache import SavedRows, VectorCache, text_key


def filled(folder, n: int = 50, dims: int = 8) -> tuple[list[bytes], np.ndarray]:
    keys = [text_key(f"passage {i}") for i in range(n)]
    vectors = np.random.default_rng(n).standard_normal((n, dims)).astype(np.float32)
    cache = VectorCache("model", dims, scope="corpus", directory=folder)
    cache.put_many(keys, vectors)
    assert cache.save() is True
    return keys, vectors


def test_a_read_cache_holds_digests_not_vectors_and_reads_any_rows_back(tmp_path, monkeypatch):
    keys, vectors = filled(tmp_path)
    cache = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    assert cache._rows == {} and len(cache) == 50 and keys[7] in cache
    assert np.array_equal(cache.get(keys[7]), vectors[7])
    monkeypatch.setattr(SavedRows, "SPAN", 8)  # dense and sparse spans, runs and repeats, in one ask
    wanted = [3, 2, 4, 5, 40, 41, 20, 49, 0, 4, 30]
    assert np.array_equal(cache.get_many([keys[i] for i in wanted]), vectors[wanted])
    assert cache.get_many([keys[0], text_key("never embedded")]) is None, "one missing: none"
    new = np.ones((1, 8), np.float32)
    cache.put_many([text_key("new")], new)
    assert set(cache._rows) == {text_key("new")} and len(cache) == 51
    assert np.array_equal(cache.get_many([text_key("new"), keys[1]]), np.vstack([new, vectors[1:2]]))
    assert cache.file_order([text_key("new"), keys[9], keys[2]]) == [keys[2], keys[9], text_key("new")], \
        "as the file holds them, what is only in memory last"
    assert cache.save() is True and cache._rows == {}, "saved: the new vector is read from the file too"
    assert np.array_equal(cache.get(text_key("new")), new[0])


def test_a_save_in_order_writes_the_file_in_that_order_and_an_unchanged_one_writes_nothing(tmp_path):
    keys, vectors = filled(tmp_path)
    cache = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    wanted = list(reversed(keys[10:]))
    assert cache.save(keep=set(wanted)) is True, "forty kept of fifty: written"
    assert list(cache._saved.at) == keys[10:], "unordered keep: the file's own order"
    mtime = cache.path.stat().st_mtime_ns
    assert cache.save(keep=set(wanted)) is False and cache.path.stat().st_mtime_ns == mtime
    assert cache.save(keep=wanted, ordered=True) is True
    again = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    assert list(again._saved.at) == wanted and len(again) == 40 and keys[0] not in again
    assert np.array_equal(again.get_many(wanted), vectors[10:][::-1])
    assert again.save(keep=wanted, ordered=True) is False, "already in that order"


def test_the_file_replaced_or_deleted_while_open_still_serves_what_was_read(tmp_path):
    keys, vectors = filled(tmp_path)
    cache = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    other = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    other.put_many([text_key("theirs")], np.full((1, 8), 2, np.float32))
    assert other.save(keep=[keys[0], text_key("theirs")], ordered=True)  # another process replaced the file
    assert np.array_equal(cache.get_many(keys), vectors), "the handle holds the file as it was read"
    os.unlink(cache.path)
    assert np.array_equal(cache.get(keys[49]), vectors[49]), "deleted while open: still read"
    cache.put_many([text_key("mine")], np.zeros((1, 8), np.float32))
    assert cache.save() is True and cache.notices == []
    assert len(VectorCache("model", 8, scope="corpus", directory=tmp_path)) == 51, "nothing lost"


def test_the_file_merged_from_another_process_keeps_both_sides(tmp_path):
    keys, vectors = filled(tmp_path)
    mine = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    theirs = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    theirs.put_many([text_key("theirs")], np.full((1, 8), 2, np.float32))
    assert theirs.save()
    mine.put_many([text_key("mine")], np.full((1, 8), 3, np.float32))
    assert mine.save()
    both = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    assert len(both) == 52 and both.get(text_key("theirs"))[0] == 2 and both.get(text_key("mine"))[0] == 3
    assert np.array_equal(both.get_many(keys), vectors)


def test_a_file_cut_short_while_open_is_said_once_and_its_vectors_embedded_again(tmp_path):
    keys, vectors = filled(tmp_path)
    cache = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    with open(cache.path, "r+b") as fh:  # damaged in place, under the open handle
        fh.truncate(cache.path.stat().st_size // 2)
    assert cache.get_many(keys) is None and cache.get(keys[0]) is None
    assert len(cache.notices) == 1 and "unreadable while open" in cache.notices[0]
    assert keys[0] not in cache, "no longer counted as embedded: the index embeds it again"
    cache.put_many(keys, vectors)
    assert cache.save() is True
    again = VectorCache("model", 8, scope="corpus", directory=tmp_path)
    assert again.notices == [] and np.array_equal(again.get_many(keys), vectors)
