"""`olai-tui bench notes --corpus DIR` on a small vault made by tools/make_vault.py: the vault is the
same bytes for the same seed, and the bench opens it cold and warm, the warm open from the saved index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def make(out: Path, notes: int) -> dict[str, bytes]:
    done = subprocess.run([sys.executable, "tools/make_vault.py", str(out), "--notes", str(notes)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.md"))}


def test_the_vault_is_the_same_for_the_same_seed_and_every_note_differs(tmp_path):
    first, second = make(tmp_path / "a", 40), make(tmp_path / "b", 40)
    assert first == second and len(first) == 40
    assert len(set(first.values())) == 40  # no two notes alike
    assert all(text.startswith(b"---\ntitle: ") and b"\ntags: [" in text for text in first.values())
    inside = subprocess.run([sys.executable, "tools/make_vault.py", str(REPO / "vault-here"), "--notes", "1"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert inside.returncode == 2 and "inside the repository" in inside.stderr
    assert not (REPO / "vault-here").exists()


def test_the_bench_opens_a_vault_cold_then_warm_from_the_saved_index(tmp_path):
    make(tmp_path / "vault", 60)
    done = subprocess.run([sys.executable, "-m", "olai_tui.cli", "bench", "notes", "--corpus", str(tmp_path / "vault"),
                           "--quick", "--json"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    vault = json.loads(done.stdout)["vault"]
    assert vault["notes"] == vault["cold"]["notes"] == 60
    assert vault["index_bytes"] > 0 and vault["cold"]["index_writes"] == 1
    assert vault["warm"]["index_writes"] == 0  # nothing changed: the warm open wrote nothing
    assert vault["warm"]["notices"] == [] and vault["cold"]["first_exact_hits"] >= 0
    assert vault["warm"]["edit_one_file_ms"]["ms"] > 0
    assert set(vault["warm"]["query_ms"]) == {"exact", "words"}
