"""The trained table's meaning of a tree kept beside its code index (engines/code/meaning_state.py): a
warm open reads it back ready, answering what a build answers; an edit, another table or a damaged file
and it is built again. On a small tree written here, with the real shipped table."""

from __future__ import annotations

import numpy as np

from engines.answer import collect
from engines.code.engine import CodeEngine
from engines.code.meaning import Meaning
from engines.code.meaning_state import state_file

FILES = {
    "billing/refunds.py": 'def refund(order, amount):\n    """Give money back to the customer."""\n    return order.pay(-amount)\n',
    "billing/tax.py": 'def add_tax(total, rate):\n    """The total with sales tax added."""\n    return total * (1 + rate)\n',
    "net/retry.py": 'def with_backoff(call, tries=3):\n    """Call again after a failure, waiting longer each time."""\n'
                    '    for n in range(tries):\n        try:\n            return call()\n        except OSError:\n'
                    '            sleep(2 ** n)\n',
    "net/urls.py": 'class Url:\n    """A parsed web address."""\n    def host(self):\n        return self.parts[1]\n',
}
QUERIES = ("money back to a customer", "wait longer after a failure", "web address host")


def _write(tmp_path, files=FILES):
    for rel, text in files.items():
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / rel).write_text(text, encoding="utf-8")


def _open(tmp_path) -> CodeEngine:
    return CodeEngine(tmp_path / "tree", wait_for_index=True, cache_dir=str(tmp_path / "cache"), contextual=False)


def _answers(engine):
    out = []
    for q in QUERIES:
        answer = collect("code", q, engine.search(q, 10))
        out.append([(h.id, h.score, h.tier) for h in answer.hits])
    return out


def test_a_warm_open_reads_the_meaning_back_ready_and_answers_as_the_build_did(tmp_path):
    _write(tmp_path)
    first = _open(tmp_path)
    built = _answers(first)
    static = first.static_vectors
    assert static._kept is None  # built: nothing was kept yet
    query = static.embedder.embed(["money back"], "query")[0]
    rows, cosines, ranking = static.scores(query)
    first.close()  # waits for the state's write
    assert state_file(first.index_file).is_file()
    assert not any(p.name.endswith(".meaning") for p in (tmp_path / "tree").rglob("*"))  # never in the tree

    again = _open(tmp_path)
    try:
        kept = again.static_vectors
        assert kept._kept is not None and kept.state().state == "ready"
        assert kept._kept.measured  # a small tree's density came back with the vectors
        kept_rows, kept_cosines, kept_ranking = kept.scores(query)
        assert np.array_equal(kept_rows, rows)
        assert np.allclose(kept_cosines, cosines, atol=1e-6) and np.allclose(kept_ranking, ranking, atol=1e-6)
        assert _answers(again) == built
        assert kept.embedded_texts.count == 0  # nothing embedded again
    finally:
        again.close()


def test_an_edited_file_builds_the_meaning_again_and_keeps_it_for_the_next_open(tmp_path):
    _write(tmp_path)
    first = _open(tmp_path)
    _answers(first)
    first.close()
    (tmp_path / "tree" / "billing" / "tax.py").write_text(
        'def add_vat(total, rate):\n    """The total with value added tax."""\n    return total * (1 + rate)\n',
        encoding="utf-8")
    edited = _open(tmp_path)
    try:
        assert edited.static_vectors._kept is None  # made for another index: not used
        hits = [h.id for h in collect("code", "value added tax", edited.search("value added tax", 5)).hits]
        assert hits[0] == "billing/tax.py::add_vat"
    finally:
        edited.close()
    after = _open(tmp_path)
    try:
        assert after.static_vectors._kept is not None  # written again for the edited tree
        assert [h.id for h in collect("code", "value added tax", after.search("value added tax", 5)).hits] == hits
    finally:
        after.close()


def test_a_damaged_or_foreign_state_is_built_again_not_used(tmp_path, monkeypatch):
    from engines.code.static_vectors import StaticVectorIndex

    _write(tmp_path)
    first = _open(tmp_path)
    built = _answers(first)
    first.close()
    path = state_file(first.index_file)
    for damage in ("truncated", "garbage", "another density bound"):
        if damage == "truncated":
            path.write_bytes(path.read_bytes()[:-100])
        elif damage == "garbage":
            path.write_bytes(b"not a state file at all")
        else:
            monkeypatch.setattr(StaticVectorIndex, "density_most", 2)  # its densities were measured under another
        again = _open(tmp_path)
        try:
            assert again.static_vectors._kept is None, damage
            answers = _answers(again)
            assert damage == "another density bound" or answers == built, damage
        finally:
            again.close()  # the build writes it again


def test_cosines_of_finds_each_asked_position_among_the_embedded_rows():
    meaning = Meaning([], np.zeros(0, np.int64), np.asarray([0, 2, 5, 9]), np.asarray([0.1, 0.2, 0.5, 0.9], np.float32))
    got = meaning.cosines_of([9, 5, 1, 0, 12, 2])
    assert np.allclose(got[[0, 1, 3, 5]], [0.9, 0.5, 0.1, 0.2]) and np.isnan(got[[2, 4]]).all()
