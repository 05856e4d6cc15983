"""The cache's file system failing under it (issue 39), on a real one: a small tmpfs mounted for the
test as the cache (the machine's tests run as root; elsewhere these skip, saying why). A full disk
during a save: the previous generation answers and one line names the cause. A read-only cache: the
answers come from memory and one line says the cache is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tmpfs(tmp_path):
    where = tmp_path / "cache"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip() or 'not root'}): the disk-full and "
                    "read-only cache tests need one")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)



def cli(*args: str, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olai_tui.cli", *args], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)}, timeout=600)


def fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_during_a_save_leaves_the_previous_generation_answering_and_names_the_cause(tmpfs, vault):
    first = cli("index", "notes", "--corpus", str(vault), cache=tmpfs)
    assert first.returncode == 0, first.stderr[-500:]
    vec = next((tmpfs / "olai-tui" / "vectors").glob("*.vec"))
    before = vec.read_bytes()
    filler = fill(tmpfs)
    note = next(vault.rglob("*.md"))
    text = note.read_text()
    note.write_text(text + "\nA line about ionospheric sounding added while the disk is full.\n")
    try:
        full = cli("index", "notes", "--corpus", str(vault), cache=tmpfs)
        assert full.returncode == 0, full.stderr[-500:]
        assert "Traceback" not in full.stderr
        said = [line for line in full.stderr.splitlines() if "no space left on device" in line.lower()]
        assert said, full.stderr[-800:]
        assert vec.read_bytes() == before, "the vector file the disk could not replace is the previous one, whole"
        filler.unlink()
        after = cli("search", "notes", "ionospheric sounding", "--corpus", str(vault), "--wait", "--json", cache=tmpfs)
        assert after.returncode == 0 and "damaged" not in after.stderr and "discarded" not in after.stderr, after.stderr
        assert '"hits": [' in after.stdout
    finally:
        note.write_text(text)


def test_a_read_only_cache_answers_from_memory_and_says_the_cache_is_off(tmpfs, vault):
    done = subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True)
    assert done.returncode == 0, done.stderr
    # a query the exact tier does not fill, so the meaning index is built (and cannot be kept)
    answer = cli("search", "notes", "radio waves reflected by the ionosphere", "--corpus", str(vault), "--wait",
                 "--json", cache=tmpfs)
    assert answer.returncode == 0, answer.stderr[-500:]
    assert "Traceback" not in answer.stderr
    assert {"name": "semantic", "status": "answered"}.items() <= next(
        t for t in json.loads(answer.stdout)["tiers"] if t["name"] == "semantic").items()
    lines = [line for line in answer.stderr.splitlines() if "read-only file system" in line.lower()
             or "without persistence" in line.lower() or "not saved" in line.lower()]
    assert lines, answer.stderr[-800:]
