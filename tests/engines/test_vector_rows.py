"""Vectors in blocks that never move (engines/embed/rows.py): what the notes index appends and what
the vector cache lands."""

from __future__ import annotations

import numpy as np

import engines.embed.rows as rows_module
from engines.embed.rows import AppendedInts, AppendedRows, Slab, int8_inner, quantize


def unit_rows(rng, n: int, dims: int = 384) -> np.ndarray:
    rows = rng.normal(size=(n, dims)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_appended_rows_keep_what_a_reader_took_and_score_as_one_matrix_within_int8s_error(monkeypatch):
    monkeypatch.setattr(rows_module, "BLOCK_ROWS", 4)
    rng = np.random.default_rng(3)
    data = unit_rows(rng, 11)
    appended = AppendedRows(384)
    appended.extend(data[:6])
    taken = appended.view()
    appended.extend(data[6:])  # across block ends
    q = unit_rows(rng, 1)[0]
    # int8 rows and an int8 query, a scale each: a cosine within 0.005 of float32's (0.003 measured)
    assert np.abs(taken.dot(q) - data[:6] @ q).max() < 0.005 and len(taken) == 6, "a view is what it was when taken"
    assert np.abs(appended.view().dot(q) - data @ q).max() < 0.005
    columns = unit_rows(rng, 3).T
    product = appended.view().dot(columns)
    assert product.shape == (11, 3) and np.abs(product - data @ columns).max() < 0.005
    assert np.array_equal(appended.view().max_dot(columns), product.max(axis=0)), "block by block, the same maxima"
    assert appended.view().dot(q).dtype == np.float32
    ints = AppendedInts()
    ints.extend(list(range(3000)))
    first = ints.view()
    ints.extend([7])
    assert first.tolist() == list(range(3000)) and ints.view()[-1] == 7


def test_int8_rows_are_a_quarter_of_float32_and_simsimd_sums_as_numpy_does():
    rng = np.random.default_rng(4)
    data = unit_rows(rng, 300)
    q8, scale = quantize(data)
    assert q8.dtype == np.int8 and q8.nbytes * 4 == data.nbytes and np.abs(q8).max() == 127
    assert np.abs(q8 * scale[:, None] - data).max() <= scale.max() / 2 + 1e-7, "rounded to the nearest step"
    queries, _ = quantize(unit_rows(rng, 5))
    assert rows_module.simsimd is not None, "the dependency is installed"
    exact = q8.astype(np.int64) @ queries.astype(np.int64).T
    assert np.array_equal(int8_inner(q8, queries), exact.astype(np.float32)), "the kernel's integer sums"
    assert quantize(np.zeros((2, 384), np.float32))[0].tolist() == np.zeros((2, 384), np.int8).tolist()


def test_a_slab_copies_rows_and_a_full_one_is_let_go(monkeypatch):
    monkeypatch.setattr(rows_module, "SLAB_BYTES", 3 * 4 * 2)  # three 2-dim rows a slab
    slab = Slab(2)
    batch = np.arange(10, dtype=np.float32).reshape(5, 2)
    rows = slab.take(batch)
    batch[:] = -1  # the embedder's array reused: the slab's copies keep their values
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    assert rows[0].base is rows[2].base is not rows[3].base, "a new slab after three rows"
    assert slab._block is rows[3].base, "the full slab is held only by its rows' views"
