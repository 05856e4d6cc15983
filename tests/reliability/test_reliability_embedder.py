"""Embedder faults, with the real model and real files: a truncated GGUF, a file that is not GGUF, a
model of another width, llama-cpp-python missing, an embed that raises midway through a batch.

Each time the meaning tier says ``unavailable`` or ``failed`` with the cause, the cheap tier answers
exactly as it does alone, a failed batch is retried a bounded number of times with backoff, and once
the fault clears meaning comes back without a restart, but only after the cooldown: a broken model
is not tried again on every keystroke.

``-s`` prints one ``FAULT`` line per case (the README's faults table).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import engines.code.vectors as code_vectors
import engines.notes.semantic as notes_semantic
from engines.answer import collect
from engines.code.engine import CodeEngine
from engines.embed.llama import LlamaEmbedder
from engines.embed.provenance import default_model_path
from engines.embed.retry import RetryPolicy
from engines.notes.chunks import note_texts
from engines.notes.engine import NotesEngine
from engines.products.engine import ProductsEngine

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"
SLUGS = "garden/cold-frames/slugs.md"
SNAILS = "protecting young plants from snails"
WORD = "slugs"  # the exact tier answers it (the slugs note), so "exact unchanged" is checked on real rows
QUICK = RetryPolicy(tries=3, backoff_s=0.05, cooldown_s=1.0)  # the shipped policy, at test speed


def small_notebook(folder: Path) -> Path:
    (folder / "garden" / "cold-frames").mkdir(parents=True)
    shutil.copy(DEMO / SLUGS, folder / SLUGS)
    shutil.copy(DEMO / "garden" / "compost.md", folder / "garden" / "compost.md")
    shutil.copy(DEMO / "workshop" / "varnish.md", folder / "varnish.md")
    shutil.copy(DEMO / "kitchen" / "chutney.md", folder / "chutney.md")
    return folder


def ask(engine, query=SNAILS, tiers=("exact", "semantic"), limit=10):
    started = time.perf_counter()
    answer = collect("notes", query, engine.search(query, limit, tiers))
    return answer, (time.perf_counter() - started) * 1000


def exact_alone(engine, query=SNAILS, limit=10):
    return [h.id for h in ask(engine, query, ("exact",), limit)[0].hits]


def cheap_tier_unchanged(engine) -> None:
    """With meaning broken, a search answers exactly what the exact tier answers alone."""
    answer, ms = ask(engine, WORD)
    assert answer.hits and [h.id for h in answer.hits] == exact_alone(engine, WORD), answer.to_json()
    assert answer.tier("exact").status == "answered" and answer.tier("semantic").status in ("unavailable", "failed")
    print(f"  exact tier answered {WORD!r} with {len(answer.hits)} rows in {ms:.0f} ms, meaning "
          f"{answer.tier('semantic').status}")


def report(fault: str, answer, ms: float, tier: str = "semantic") -> None:
    t = answer.tier(tier)
    print(f"\nFAULT {fault}: {tier} {t.status} ({t.reason}); answered by "
          f"{sorted({h.tier for h in answer.hits}) or ['-']} in {ms:.0f} ms")


class CountingEmbedder(LlamaEmbedder):
    """The real embedder, counting how often it looks at its model file (each load attempt does)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.file_checks = 0

    def _check_file(self) -> None:
        self.file_checks += 1
        super()._check_file()


class FaultyEmbedder(LlamaEmbedder):
    """The real embedder; document batches number ``fail_from`` and later embed half their texts, then
    raise (as llama_decode failing midway), while ``broken`` holds; ``fail_once`` breaks one batch only."""

    def __init__(self, fail_from: int, fail_once: bool = False) -> None:
        super().__init__()
        self.fail_from, self.fail_once = fail_from, fail_once
        self.broken = True
        self.document_calls = 0
        self.raised = 0

    def embed(self, texts, kind):
        if kind == "document":
            self.document_calls += 1
            if self.broken and self.document_calls >= self.fail_from and not (self.fail_once and self.raised):
                super().embed(texts[: max(1, len(texts) // 2)], kind)  # real work, then the fault
                self.raised += 1
                raise RuntimeError("llama_decode returned -3 midway through the batch")
        return super().embed(texts, kind)


class NarrowEmbedder(LlamaEmbedder):
    """The real model, but its ``kind`` vectors come out 192 wide while it declares 384: another model's width."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.narrow_kind = kind

    def embed(self, texts, kind):
        vectors = super().embed(texts, kind)
        if kind != self.narrow_kind:
            return vectors
        narrow = vectors[:, :192]
        return narrow / np.linalg.norm(narrow, axis=1, keepdims=True)


# -- a broken model file --------------------------------------------------------------------------
DAMAGE = {
    "truncated GGUF": lambda real: real[: len(real) // 2],
    "not GGUF": lambda real: b"PK\x03\x04 this is a zip, not a model\n" * 100,
    "empty file": lambda real: b"",
}
CAUSE = {"truncated GGUF": "could not load", "not GGUF": "not a GGUF file", "empty file": "not a GGUF file"}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_broken_model_file_says_unavailable_and_recall_returns_after_the_fix_and_the_cooldown(tmp_path, damage):
    real = default_model_path().read_bytes()
    model = tmp_path / "model.gguf"
    model.write_bytes(DAMAGE[damage](real))
    embedder = CountingEmbedder(model_path=model)
    engine = NotesEngine(small_notebook(tmp_path / "notes"), embedder=embedder, cache_dir=str(tmp_path / "cache"),
                         wait_for_index=True)
    engine.semantic.retry = QUICK

    broken, ms = ask(engine)
    report(damage, broken, ms)
    semantic = broken.tier("semantic")
    assert semantic.status == "unavailable" and CAUSE[damage] in semantic.reason and str(model) in semantic.reason
    assert "OLAI_EMBED_MODEL" in semantic.enable
    cheap_tier_unchanged(engine)

    model.write_bytes(real)  # the fault clears: the file is put right
    checks = embedder.file_checks
    for _ in range(5):  # keystrokes inside the cooldown: no new attempt at all
        again, ms = ask(engine)
        assert again.tier("semantic").status == "unavailable" and ms < 100
    assert embedder.file_checks == checks

    time.sleep(QUICK.cooldown_s)
    recovered, ms = ask(engine)
    print(f"RECOVERY {damage}: semantic {recovered.tier('semantic').status} {ms:.0f} ms after the cooldown")
    assert recovered.tier("semantic").status == "answered", recovered.to_json()
    slugs = [h for h in recovered.hits if h.id == SLUGS]
    assert slugs and slugs[0].tier == "semantic"


def test_a_missing_model_recovers_in_the_background_index_too(tmp_path):
    # The workbench's path: the index builds in a thread (wait_for_index=False).
    model = tmp_path / "not-yet.gguf"
    engine = NotesEngine(small_notebook(tmp_path / "notes"), embedder=LlamaEmbedder(model_path=model),
                         cache_dir=str(tmp_path / "cache"))
    engine.semantic.retry = QUICK
    try:
        first, _ = ask(engine)
        assert first.tier("semantic").status == "unavailable" and "no model file" in first.tier("semantic").reason
        shutil.copy(default_model_path(), model)
        deadline = time.monotonic() + 30
        while ask(engine)[0].tier("semantic").status != "answered":
            assert time.monotonic() < deadline, engine.semantic.state()
            time.sleep(0.2)
    finally:
        engine.close()


# -- another width -----------------------------------------------------------------------------------
def test_document_vectors_of_another_width_fail_the_index_with_both_widths_named(tmp_path):
    engine = NotesEngine(small_notebook(tmp_path / "notes"), embedder=NarrowEmbedder("document"),
                         cache_dir=str(tmp_path / "cache"), wait_for_index=True)
    answer, ms = ask(engine)
    report("vectors of another width (documents)", answer, ms)
    semantic = answer.tier("semantic")
    assert semantic.status == "failed" and "192" in semantic.reason and "384" in semantic.reason
    cheap_tier_unchanged(engine)
    assert len(engine.semantic._cache) == 0, "no vector of the wrong width was kept"


def test_a_query_vector_of_another_width_fails_the_tier_not_the_search(tmp_path):
    engine = NotesEngine(small_notebook(tmp_path / "notes"), embedder=NarrowEmbedder("query"),
                         cache_dir=str(tmp_path / "cache"), wait_for_index=True)
    answer, ms = ask(engine)
    report("vectors of another width (query)", answer, ms)
    assert answer.tier("semantic").status == "failed" and "(1, 192)" in answer.tier("semantic").reason
    cheap_tier_unchanged(engine)
    code = CodeEngine(REPO / "fixtures" / "code", embedder=NarrowEmbedder("query"), cache_dir=str(tmp_path / "c"),
                      wait_for_index=True)
    coded = collect("code", "throttle requests", code.search("throttle requests", 10, ("lexical", "embedding")))
    assert coded.tier("lexical").status == "answered"
    assert coded.tier("embedding").status == "failed" and "192" in coded.tier("embedding").reason


# -- an embed that raises midway through a batch -------------------------------------------------------
def test_a_batch_that_fails_once_is_retried_and_the_index_completes(tmp_path, monkeypatch):
    monkeypatch.setattr(notes_semantic.SemanticIndex, "embed_batch", 3)
    embedder = FaultyEmbedder(fail_from=2, fail_once=True)
    engine = NotesEngine(small_notebook(tmp_path / "notes"), embedder=embedder, cache_dir=str(tmp_path / "cache"),
                         wait_for_index=True)
    engine.semantic.retry = QUICK
    answer, ms = ask(engine)
    report("one batch raises midway, once", answer, ms)
    assert embedder.raised == 1
    assert answer.tier("semantic").status == "answered" and engine.semantic.state().state == "ready"
    every = sorted({p for n in engine.notes for p in note_texts(n)})
    assert sorted(engine.semantic.embedded_texts) == every, "each passage stored once, none from the torn batch twice"


def test_a_batch_that_keeps_failing_is_reported_after_three_tries_and_recovers_after_the_cooldown(tmp_path,
                                                                                                   monkeypatch):
    monkeypatch.setattr(notes_semantic.SemanticIndex, "embed_batch", 3)
    embedder = FaultyEmbedder(fail_from=2)
    engine = NotesEngine(small_notebook(tmp_path / "notes"), embedder=embedder, cache_dir=str(tmp_path / "cache"),
                         wait_for_index=True)
    engine.semantic.retry = QUICK
    started = time.monotonic()
    failed, ms = ask(engine)
    report("every batch from the 2nd raises midway", failed, ms)
    semantic = failed.tier("semantic")
    assert semantic.status == "failed", failed.to_json()
    assert "after 3 tries" in semantic.reason and "llama_decode returned -3" in semantic.reason
    assert embedder.raised == 3 and time.monotonic() - started >= QUICK.backoff_s * 3  # 0.05 + 0.10 between tries
    cheap_tier_unchanged(engine)
    first_batch = list(engine.semantic.embedded_texts)
    assert len(first_batch) == 3, "the batch before the fault is kept"

    embedder.broken = False  # the fault clears
    calls = embedder.document_calls
    assert ask(engine)[0].tier("semantic").status == "failed" and embedder.document_calls == calls, \
        "inside the cooldown nothing is tried again"
    time.sleep(QUICK.cooldown_s)
    recovered, ms = ask(engine)
    assert recovered.tier("semantic").status == "answered" and any(h.id == SLUGS for h in recovered.hits)
    every = sorted({p for n in engine.notes for p in note_texts(n)})
    assert sorted(engine.semantic.embedded_texts) == every, "the first batch was not embedded again"
    assert engine.semantic.embedded_texts[:3] == first_batch


def test_the_code_index_retries_reports_and_recovers_the_same_way(tmp_path, monkeypatch):
    monkeypatch.setattr(code_vectors.VectorIndex, "embed_batch", 8)
    embedder = FaultyEmbedder(fail_from=3)
    engine = CodeEngine(REPO / "fixtures" / "code", embedder=embedder, cache_dir=str(tmp_path / "cache"),
                        wait_for_index=True)
    engine.vectors.retry = QUICK
    query = "where do we throttle requests"
    started = time.perf_counter()
    failed = collect("code", query, engine.search(query, 10, ("lexical", "embedding")))
    report("code: every batch from the 3rd raises midway", failed, (time.perf_counter() - started) * 1000, "embedding")
    lexical_alone = collect("code", query, engine.search(query, 10, ("lexical",)))
    assert failed.tier("embedding").status == "failed" and "after 3 tries" in failed.tier("embedding").reason
    assert [h.id for h in failed.hits] == [h.id for h in lexical_alone.hits]
    assert len(engine.vectors.embedded_texts) == 16, "two batches kept"
    embedder.broken = False
    time.sleep(QUICK.cooldown_s)
    recovered = collect("code", query, engine.search(query, 10, ("lexical", "embedding")))
    assert recovered.tier("embedding").status == "answered"
    assert len(engine.vectors.embedded_texts) == len(engine.symbols), "nothing embedded twice"


def test_products_answer_from_the_other_sources_when_the_model_is_broken(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 64)  # the magic, then nothing a loader can read
    engine = ProductsEngine(REPO / "fixtures" / "products", embedder=LlamaEmbedder(model_path=fake),
                            cache_dir=str(tmp_path / "cache"), wait_for_index=True)
    started = time.perf_counter()
    answer = engine.answer("laktoositon maito 1 l", limit=10)
    ms = (time.perf_counter() - started) * 1000
    print(f"\nFAULT products, broken GGUF: vectors {answer.extras['sources']['vectors']['status']}; "
          f"recall {answer.tier('recall').status} in {ms:.0f} ms")
    assert answer.extras["sources"]["vectors"]["status"] == "unavailable"
    assert "could not load" in answer.extras["sources"]["vectors"]["reason"]
    assert answer.tier("recall").status == "answered" and "vectors: unavailable" in answer.tier("recall").reason
    assert answer.tier("judge").status == "answered" and answer.hits


# -- llama-cpp-python missing ----------------------------------------------------------------------------
BLOCK_LLAMA_CPP = textwrap.dedent("""
    import importlib.abc, sys
    class NoLlamaCpp(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "llama_cpp" or name.startswith("llama_cpp."):
                raise ImportError(f"No module named {name!r} (blocked for this test)")
            return None
    sys.meta_path.insert(0, NoLlamaCpp())
    from olai_tui.cli import main
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.parametrize("engine, tiers, tier, query", [
    ("notes", "exact,semantic", "semantic", WORD),
    ("code", "lexical,embedding", "embedding", "where do we throttle requests"),
])
def test_without_llama_cpp_the_meaning_tier_is_unavailable_and_says_how_to_install_it(tmp_path, engine, tiers,
                                                                                        tier, query):
    corpus = small_notebook(tmp_path / "notes") if engine == "notes" else REPO / "fixtures" / "code"
    env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", BLOCK_LLAMA_CPP, "search", engine, query, "--corpus", str(corpus),
                          "--tiers", tiers, "--json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    ms = (time.perf_counter() - started) * 1000
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    answer = json.loads(run.stdout)
    meaning = next(t for t in answer["tiers"] if t["name"] == tier)
    print(f"\nFAULT llama-cpp-python missing ({engine}): {tier} {meaning['status']} ({meaning['reason']}) "
          f"{ms:.0f} ms for the whole process")
    assert meaning["status"] == "unavailable" and "llama-cpp-python is not installed" in meaning["reason"]
    assert "pip install llama-cpp-python" in meaning["enable"]
    assert answer["hits"] and all(h["tier"] != tier for h in answer["hits"])
