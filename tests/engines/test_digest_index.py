"""The vector cache's digest -> row map (engines/embed/digests.py): the answers a dict gave, in compact arrays."""

import hashlib

import numpy as np
import pytest

from engines.embed import digests as digests_module
from engines.embed.digests import DigestIndex


def digests(n, salt=b""):
    return [hashlib.sha256(salt + str(i).encode()).digest() for i in range(n)]


def test_every_digest_is_found_at_its_row_one_at_a_time_and_all_at_once():
    keys = digests(5000)
    index = DigestIndex(b"".join(keys))
    assert len(index) == 5000 and list(index) == keys, "iterated in the file's order"
    assert [index.get(k) for k in keys] == list(range(5000))
    shuffled = keys[::-1]
    np.testing.assert_array_equal(index.rows_of(shuffled), np.arange(4999, -1, -1))


def test_a_digest_not_held_is_absent_both_ways():
    index = DigestIndex(b"".join(digests(1000)))
    strangers = digests(200, salt=b"x")
    assert not any(k in index for k in strangers)
    assert index.get(strangers[0], -1) == -1
    assert (index.rows_of(strangers) == -1).all()
    assert index.get(b"short") is None and index.rows_of([b"short"]).tolist() == [-1]


def test_digests_sharing_their_first_eight_bytes_are_told_apart_by_the_whole_digest():
    a, b, c = (b"\x07" * 8 + bytes([x]) * 24 for x in (1, 2, 3))
    index = DigestIndex(b + a + digests(1)[0])
    assert (index.get(a), index.get(b), index.get(c)) == (1, 0, None)
    assert index.rows_of([a, c, b]).tolist() == [1, -1, 0]


def test_an_empty_file_holds_nothing_and_a_ragged_one_is_refused():
    empty = DigestIndex(b"")
    assert len(empty) == 0 and list(empty) == [] and digests(1)[0] not in empty
    assert empty.rows_of(digests(3)).tolist() == [-1, -1, -1]
    with pytest.raises(ValueError):
        DigestIndex(b"x" * 33)


def test_keys_asked_joined_and_in_several_passes_get_the_rows_asked_one_at_a_time(monkeypatch):
    monkeypatch.setattr(digests_module, "ASKED_AT_ONCE", 7)  # passes that end mid-way through the shared prefixes
    a, b = (b"\x07" * 8 + bytes([x]) * 24 for x in (1, 2))
    held = digests(40) + [a]
    index = DigestIndex(b"".join(held))
    asked = digests(60)[::-1] + [b, a] + digests(5, salt=b"y")
    expected = [index.get(k, -1) for k in asked]
    assert index.rows_of_joined(b"".join(asked)).tolist() == expected == index.rows_of(asked).tolist()
    assert expected.count(-1) == 20 + 1 + 5


def test_the_cache_says_which_joined_keys_it_holds_in_its_file_and_in_memory(tmp_path):
    from engines.embed.cache import VectorCache

    cache = VectorCache("m", 4, scope="s", directory=str(tmp_path))
    saved, unsaved, strangers = digests(10), digests(3, salt=b"u"), digests(4, salt=b"s")
    cache.put_many(saved, np.ones((10, 4), np.float32))
    cache.save()
    cache.put_many(unsaved, np.ones((3, 4), np.float32))
    asked = strangers[:2] + unsaved + saved[::3] + strangers[2:]
    assert cache.held_joined(b"".join(asked)).tolist() == cache.held(asked) == [k in cache for k in asked]
    assert cache.held(asked).count(True) == 3 + 4
