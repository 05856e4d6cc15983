"""Document-embedding throughput by thread count (the DOCUMENT_THREADS measurement).

    OMP_WAIT_POLICY=PASSIVE .venv/bin/python tools/measure_document_threads.py [REPO]

Embeds the first 192 symbols of a repository (default: semble's flask) through llama.cpp contexts of
1 and 2 threads, as LlamaEmbedder loads them for documents, in alternating rounds, and prints each
one's chunks a second (median of 3 rounds). Run it on a quiet machine: a neighbour's load moves
both figures.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as engines/embed/llama.py sets it

from engines.code.engine import CodeEngine  # noqa: E402
from engines.code.symbols import embed_text  # noqa: E402
from engines.embed.llama import DOCUMENT_BATCH_TOKENS, MAX_TOKENS  # noqa: E402
from engines.embed.provenance import default_model_path  # noqa: E402
from engines.locations import shared_data  # noqa: E402


def main() -> None:
    from llama_cpp import Llama

    root = sys.argv[1] if len(sys.argv) > 1 else str(shared_data() / "code" / "semble" / "repos" / "flask")
    engine = CodeEngine(root=root, embedder=None, wait_for_index=True)
    texts = [embed_text(s) for s in engine.symbols][:192]
    engine.close()
    contexts = {n: Llama(model_path=str(default_model_path()), embedding=True, n_ctx=MAX_TOKENS,
                         n_batch=DOCUMENT_BATCH_TOKENS, n_ubatch=DOCUMENT_BATCH_TOKENS, n_threads=n,
                         n_threads_batch=n, verbose=False) for n in (1, 2)}
    rates: dict[int, list[float]] = {n: [] for n in contexts}
    for _ in range(3):
        for n, llm in contexts.items():
            started = time.perf_counter()
            llm.embed(texts, normalize=False, truncate=True)
            rates[n].append(len(texts) / (time.perf_counter() - started))
    policy = os.environ.get("OMP_WAIT_POLICY")
    for n, values in rates.items():
        print(f"{n} thread{'s' if n > 1 else ''} ({policy}): {statistics.median(values):.1f} chunks/s "
              f"(rounds: {', '.join(f'{v:.1f}' for v in values)})")


if __name__ == "__main__":
    main()
