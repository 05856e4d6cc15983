"""engines/atomic.py: a file is written whole or not at all, and a failed write leaves nothing behind."""

from __future__ import annotations

import pytest

from engines.atomic import atomic_file


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "index" / "kept.bin"
    with atomic_file(target) as out:
        out.write(b"old whole")
    with pytest.raises(RuntimeError):
        with atomic_file(target) as out:
            out.write(b"new but ")
            raise RuntimeError("killed midway")
    assert target.read_bytes() == b"old whole"
    assert sorted(p.name for p in target.parent.iterdir()) == ["kept.bin"]


def test_text_mode_and_a_prefix_a_sweep_can_find(tmp_path):
    target = tmp_path / "floor.json"
    with atomic_file(target, "w", prefix=".tmp-floor.", sync_folder=True) as out:
        out.write('{"floor": 0.38}')
    assert target.read_text() == '{"floor": 0.38}'
    assert [p.name for p in tmp_path.iterdir()] == ["floor.json"]
