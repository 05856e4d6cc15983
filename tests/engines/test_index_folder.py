"""An index folder's generations (issue 39): the one the manifest moved on from outlives it for a grace,
so a reader that read the old manifest still finds its files; savers take turns."""

from __future__ import annotations

import threading
import time

import engines.index_folder as folder_module
from engines.index_folder import MANIFEST, one_writer, remove_other_generations, write_atomically, write_manifest


def save(folder, generation: str) -> None:
    name = f"rows.{generation}.npy"
    size = write_atomically(folder / name, b"x" * 10)
    write_manifest(folder, {"format": 1, "root": "/r", "generation": generation, "files": {name: size}})
    remove_other_generations(folder, {name})


def test_a_retired_generation_stays_for_its_grace_then_goes(tmp_path):
    save(tmp_path, "a")
    save(tmp_path, "b")
    assert (tmp_path / "rows.a.npy").exists(), "a reader that read manifest a still finds its files"
    folder_module.RETIRED_GRACE_S = 0.0
    try:
        save(tmp_path, "c")
    finally:
        folder_module.RETIRED_GRACE_S = 120.0
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [MANIFEST, "rows.c.npy"]


def test_files_of_no_generation_the_manifest_knows_are_a_dead_save_s_and_go(tmp_path):
    save(tmp_path, "a")
    write_atomically(tmp_path / "rows.zzz.npy", b"left by a save that died before its manifest")
    save(tmp_path, "b")
    assert not (tmp_path / "rows.zzz.npy").exists() and (tmp_path / "rows.a.npy").exists()


def test_savers_take_turns(tmp_path):
    inside, overlaps = [], []

    def saver():
        with one_writer(tmp_path):
            if inside:
                overlaps.append(True)
            inside.append(True)
            time.sleep(0.05)
            inside.pop()

    threads = [threading.Thread(target=saver) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == []
