"""The notes index's per-file stats, held as columns (engines/notes/file_stats.py)."""

from __future__ import annotations

from engines.notes.columns import digest_bytes
from engines.notes.file_stats import FileStat, FileStats


def filled() -> FileStats:
    stats = FileStats()
    stats.add("/v/a.md", 120, 1_700_000_000_123_456_789, b"\x0f" * 16, (), False)
    stats.add("/v/b.md", -1, 5, None, [["b.md", "not UTF-8", True]], True)
    stats.add("/v/c.md", 0, 2**62, b"\xab" * 16, (), True)
    return stats


def test_each_file_reads_back_as_it_was_added_in_the_order_added():
    stats = filled()
    assert len(stats) == 3
    assert list(stats.items()) == [
        ("/v/a.md", FileStat(120, 1_700_000_000_123_456_789, b"\x0f" * 16, (), False)),
        ("/v/b.md", FileStat(-1, 5, None, [["b.md", "not UTF-8", True]], True)),
        ("/v/c.md", FileStat(0, 2**62, b"\xab" * 16, (), True)),
    ]
    assert stats.get("/v/c.md") == FileStat(0, 2**62, b"\xab" * 16, (), True) and stats.get("/v/none.md") is None
    assert stats.rows() == {"/v/a.md": 0, "/v/b.md": 1, "/v/c.md": 2}


def test_a_distrusted_file_is_read_again_and_a_copy_does_not_follow_later_changes():
    stats = filled()
    kept = stats.copy()
    stats.distrust(["/v/c.md", "/v/gone.md"])
    assert stats.get("/v/c.md").size == -1 and stats.get("/v/a.md").size == 120
    assert kept.get("/v/c.md").size == 0, "a save's copy is its own"
    kept.add("/v/d.md", 1, 1, None, (), False)
    assert len(stats) == 3


def test_all_at_once_reads_back_as_one_at_a_time():
    one = filled()
    rows = list(one.items())
    at_once = FileStats.of([p for p, _ in rows], [k.size for _, k in rows], [k.mtime_ns for _, k in rows],
                           [k.digest for _, k in rows], {i: k.problems for i, (_, k) in enumerate(rows) if k.problems},
                           [k.dated_by_mtime for _, k in rows])
    assert list(at_once.items()) == rows


def test_a_digest_a_save_never_writes_is_read_as_none_so_the_file_is_hashed_again():
    assert digest_bytes("ab" * 16) == b"\xab" * 16
    assert [digest_bytes(d) for d in ("", "not hex at all, but 32 chars ok", "abcd", "zz" * 16)] == [None] * 4
