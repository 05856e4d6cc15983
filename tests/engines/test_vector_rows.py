"""Vectors in blocks that never move (engines/embed/rows.py): what the notes index appends and what
the vector cache lands."""

from __future__ import annotations

import numpy as np

import engines.embed.rows as rows_module
from engines.embed.rows import AppendedInts, AppendedRows, Slab


def test_appended_rows_keep_what_a_reader_took_and_compute_as_one_matrix(monkeypatch):
    monkeypatch.setattr(rows_module, "BLOCK_ROWS", 4)
    rng = np.random.default_rng(3)
    data = rng.normal(size=(11, 5)).astype(np.float32)
    appended = AppendedRows(5)
    appended.extend(list(data[:6]))
    taken = appended.view()
    appended.extend(list(data[6:]))  # across block ends
    q = rng.normal(size=5).astype(np.float32)
    assert np.allclose(taken.dot(q), data[:6] @ q) and len(taken) == 6, "a view is what it was when taken"
    assert np.allclose(appended.view().dot(q), data @ q)
    assert appended.view().dot(rng.normal(size=(5, 3)).astype(np.float32)).shape == (11, 3)
    assert all(np.array_equal(r, d) for r, d in zip(appended.rows(2, 9), data[2:9]))
    ints = AppendedInts()
    ints.extend(list(range(3000)))
    first = ints.view()
    ints.extend([7])
    assert first.tolist() == list(range(3000)) and ints.view()[-1] == 7


def test_a_slab_copies_rows_and_a_full_one_is_let_go(monkeypatch):
    monkeypatch.setattr(rows_module, "SLAB_BYTES", 3 * 4 * 2)  # three 2-dim rows a slab
    slab = Slab(2)
    batch = np.arange(10, dtype=np.float32).reshape(5, 2)
    rows = slab.take(batch)
    batch[:] = -1  # the embedder's array reused: the slab's copies keep their values
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    assert rows[0].base is rows[2].base is not rows[3].base, "a new slab after three rows"
    assert slab._block is rows[3].base, "the full slab is held only by its rows' views"
