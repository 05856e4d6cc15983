"""Cache faults at the engine level (tests/engines/test_vector_cache.py pins the file format's own faults): an
`olai-tui index` killed with SIGKILL at any moment, the next run loads what is there without a notice,
embeds only what is missing, and serves for every passage the vector of exactly its text.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from engines.embed.cache import text_key
from engines.embed.llama import LlamaEmbedder
from engines.notes.chunks import passages
from engines.notes.engine import NotesEngine

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "notes"


def test_an_index_killed_at_any_moment_leaves_a_cache_the_next_run_trusts(tmp_path, monkeypatch):
    corpus = tmp_path / "notes"
    shutil.copytree(DEMO / "garden", corpus / "garden")
    xdg = tmp_path / "xdg"
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    embedder = LlamaEmbedder()
    for round_no in range(3):
        child = subprocess.Popen([sys.executable, "-m", "olai_tui.cli", "index", "notes", "--corpus", str(corpus)],
                                 cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.5))  # loading, embedding or saving: wherever it is
        child.send_signal(signal.SIGKILL)
        child.wait()
        # the next run: the cache the killed one left, trusted only where it is right
        monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
        engine = NotesEngine(corpus, embedder=embedder, wait_for_index=True)
        state = engine.build_index()
        where = f"(seed {seed}, round {round_no})"
        assert state.state == "ready" and engine.semantic.notices() == [], where
        texts = sorted({p for n in engine.notes for p in passages(n)})
        stored = np.stack([engine.semantic._cache.get(text_key(t)) for t in texts])
        fresh = embedder.embed(texts, "document")
        # llama.cpp's numbers move in the 4th decimal with how texts are packed into a batch; another
        # text's vector is far off (the closest two of these 40 passages: cosine 0.65)
        agreement = np.sum(stored * fresh, axis=1)
        assert agreement.min() > 0.999, f"a stored vector is not its text's {where}: {agreement.min():.4f}"
        for note in corpus.rglob("*.md"):  # the next round starts with work left to do
            if round_no == 0 or rng.random() < 0.3:
                note.write_text(note.read_text() + f"\nround {round_no}: {rng.random()}\n")
