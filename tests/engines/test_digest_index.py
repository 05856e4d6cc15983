"""The vector cache's digest -> row map (engines/embed/digests.py): the answers a dict gave, in compact arrays."""

import hashlib

import numpy as np
import pytest

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
