"""A one-shot search never waits on a whole meaning index: it answers within its wait budget with what is
indexed, says what is still indexing and how to finish it; `--wait` waits for all of it. Run as real
subprocesses with the real model, each on a cold cache of its own."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from tests.app.test_cli import cli, only_json

NOTES = 300


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Enough notes that MiniLM takes several times the default budget to embed them all."""
    folder = tmp_path_factory.mktemp("notes")
    for i in range(NOTES):
        (folder / f"note-{i:03}.md").write_text(
            f"# Note {i}\n\nThe seedlings in bed {i} were eaten by slugs; a copper ring and a cold frame "
            f"kept the rest. Planted in week {i % 52}, watered every {i % 7 + 1} days.\n", encoding="utf-8")
    return folder


def _semantic(answer: dict) -> dict:
    return next(t for t in answer["tiers"] if t["name"] == "semantic")


def _unfinished(semantic: dict) -> bool:
    """The model's index not complete: still indexing, or answered for every note by the static vectors
    standing in (a small vault's are whole within the budget) with MiniLM's still building."""
    if semantic["status"] == "indexing":
        return True
    shares = semantic.get("vectors") or {}
    return semantic["status"] in ("answered", "empty") and shares.get("static") == 1.0 and shares["contextual"] < 1.0


def test_a_search_on_a_cold_index_answers_with_what_is_ready_and_says_how_to_finish(corpus, tmp_path):
    done = cli("search", "notes", "copper ring", "--corpus", str(corpus), "--json", "--limit", "500",
               cache=tmp_path / "cold")
    answer = only_json(done)
    assert len(answer["hits"]) == NOTES and answer["hits"][0]["tier"] == "exact"  # evidence answered in full
    semantic = _semantic(answer)
    assert _unfinished(semantic) and semantic["done"] < semantic["of"] == NOTES, semantic
    assert semantic["enable"].startswith(f"olai-tui index notes --corpus {corpus}")
    said = [line for line in done.stderr.splitlines() if "still indexing" in line or "still building" in line]
    assert len(said) == 1 and f"/{NOTES:,} notes" in said[0] and "olai-tui index notes" in said[0], done.stderr


def test_wait_waits_for_the_whole_index(corpus, tmp_path):
    answer = only_json(cli("search", "notes", "slugs eating young plants", "--corpus", str(corpus), "--json",
                           "--wait", cache=tmp_path / "cold", timeout=600))
    assert _semantic(answer)["status"] in ("answered", "empty"), _semantic(answer)


def test_wait_zero_answers_at_once_and_what_it_began_is_kept_for_the_next_search(corpus, tmp_path):
    cache = tmp_path / "cold"
    first = _semantic(only_json(cli("search", "notes", "garden pests at night", "--corpus", str(corpus), "--json",
                                    "--wait", "0", cache=cache)))
    assert _unfinished(first) and first["done"] < NOTES
    second = _semantic(only_json(cli("search", "notes", "garden pests at night", "--corpus", str(corpus), "--json",
                                     "--wait", "1", cache=cache)))
    # the first one's embedded passages were saved when it closed: the second goes on from there
    assert second["status"] in ("indexing", "answered", "empty") and (second.get("done", NOTES) >= first["done"])


def test_the_people_printout_names_the_tier_still_indexing(corpus, tmp_path):
    done = cli("search", "notes", "garden pests at night", "--corpus", str(corpus), "--wait", "0", cache=tmp_path / "cold")
    assert done.returncode == 0, done.stderr
    chips = done.stdout.strip().splitlines()[-1]
    # indexing, or answered from the static vectors for every note while MiniLM's still build
    assert any(f"semantic: {s}" in chips for s in ("indexing", "answered", "empty")), chips
    assert f"/{NOTES}" in chips and "[enable: olai-tui index notes" in chips


class SlowEmbedder:
    """The static embedder made slow: each batch takes ``pause`` seconds, as MiniLM's do on a big vault."""

    def __init__(self, pause: float) -> None:
        from engines.embed.static import StaticEmbedder

        self.inner, self.pause, self.batches = StaticEmbedder(), pause, 0

    def info(self):
        return self.inner.info()

    def embed(self, texts, kind):
        if kind == "document":
            self.batches += 1
            time.sleep(self.pause)
        return self.inner.embed(texts, kind)


def test_the_contract_waits_at_most_its_budget_then_in_full_when_asked(corpus, tmp_path):
    from engines.notes.engine import NotesEngine

    engine = NotesEngine(corpus, embedder=SlowEmbedder(0.2), cache_dir=str(tmp_path / "cache"))
    try:
        started = time.monotonic()
        indexing = engine.wait_for(None, 0.5)
        waited = time.monotonic() - started
        assert [r.name for r in indexing] == ["semantic"] and indexing[0].done < NOTES
        assert waited < 10, waited  # a budget, not the build (10 batches of 0.2 s at the least)
        assert engine.wait_for(("exact", "words"), 5.0) == []  # no model tier asked: nothing to wait on
        assert engine.wait_for(None, 120.0) == []
        answer = engine.collect("slugs", engine.search("slugs", limit=5))
        assert {t.name: t.status for t in answer.tiers}["semantic"] in ("answered", "empty", "skipped")
        assert np.isfinite(engine.semantic.ranked(engine.embedder.embed(["slugs"], "query")[0]).best).all()
    finally:
        engine.close()
