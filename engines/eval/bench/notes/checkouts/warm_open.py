"""One warm open of a vault by a checkout's notes engine, then one exact answer: to alternate two
checkouts on the same machine (docs/bench-notes.md, format 2).

    python engines/eval/bench/notes/checkouts/warm_open.py CHECKOUT CACHE [VAULT]

CHECKOUT: the tree whose engines/ opens (put first on the path); CACHE: the cache folder holding the
vault's notes index (opened once before, so this open is warm); VAULT: default /tmp/vault-100k.
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, sys.argv[1])

from engines.answer import collect  # noqa: E402
from engines.notes.engine import NotesEngine  # noqa: E402


def main() -> None:
    vault = sys.argv[3] if len(sys.argv) > 3 else "/tmp/vault-100k"
    started, cpu = time.perf_counter(), time.process_time()
    engine = NotesEngine(vault, cache_dir=sys.argv[2])
    opened = time.perf_counter()
    collect("notes", "pulse modulators", engine.search("pulse modulators", limit=10, tiers=("exact",)))
    answered = time.perf_counter()
    print(f"{sys.argv[1]}: open {opened - started:.3f} s, first exact {1000 * (answered - opened):.0f} ms, "
          f"CPU {time.process_time() - cpu:.2f} s, notices {engine.notices()}")


if __name__ == "__main__":
    main()
