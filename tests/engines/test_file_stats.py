"""The notes index's per-file stats, held as columns (engines/notes/file_stats.py)."""

from __future__ import annotations

from engines.notes.columns import digest_bytes
from engines.notes.file_stats import FileStat, FileStats

FILES = [
    ("/v/a.md", FileStat(120, 1_700_000_000_123_456_789, b"\x0f" * 16, (), False)),
    ("/v/b.md", FileStat(-1, 5, None, [["b.md", "not UTF-8", True]], True)),
    ("/v/c.md", FileStat(0, 2**62, b"\xab" * 16, (), True)),
]


def filled() -> FileStats:
    return FileStats.of([p for p, _ in FILES], [k.size for _, k in FILES], [k.mtime_ns for _, k in FILES],
                        [k.digest for _, k in FILES], {i: k.problems for i, (_, k) in enumerate(FILES) if k.problems},
                        [k.dated_by_mtime for _, k in FILES])


def test_each_file_reads_back_as_it_was_given_in_the_order_given():
    stats = filled()
    assert len(stats) == 3 and stats.rows() == {"/v/a.md": 0, "/v/b.md": 1, "/v/c.md": 2}
    assert [(path, stats.row(i)) for path, i in stats.rows().items()] == FILES


def test_a_distrusted_file_is_read_again_and_a_copy_does_not_follow_later_changes():
    stats = filled()
    kept = stats.copy()
    stats.distrust(["/v/c.md", "/v/gone.md"])
    assert stats.row(2).size == -1 and stats.row(0).size == 120
    assert kept.row(2).size == 0, "a save's copy is its own"


def test_a_digest_a_save_never_writes_is_read_as_none_so_the_file_is_hashed_again():
    assert digest_bytes("ab" * 16) == b"\xab" * 16
    assert [digest_bytes(d) for d in ("", "not hex at all, but 32 chars ok", "abcd", "zz" * 16)] == [None] * 4
