"""Where a code index's open, edits and queries spend their time, in one process (CPU beside wall).

    python -m engines.eval.bench.code.profile_index ../shared/data/code/semble/repos [--prof]

Opens the tree with its kept index (the first run builds it: run twice), edits one file twice the way
the watcher does (its new text parsed from a copy under /tmp: nothing is written into the tree; the
index is not written back), and runs 20 lexical queries. --prof: cProfile of the second edit.
Used for docs/bench-code.md; `olai-tui bench code --corpus DIR` is the benchmark.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path


QUERIES = ["flat hash map insert", "retry with backoff", "parse a url", "decode json"]


def main() -> None:
    from engines.code.corpus import load_file
    from engines.code.engine import CodeEngine

    tree = sys.argv[1]
    wall, cpu = time.perf_counter(), time.process_time()
    engine = CodeEngine(tree)
    list(engine.search(QUERIES[0], 10, tiers=("lexical",)))
    print(f"open to first answer: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU "
          f"(imports not counted), {engine.parsed} files parsed, {len(engine.symbols):,} symbols")
    engine.wait_saved()
    engine._writer = None  # the edits below are not written back: the tree's files did not change
    files = [f for f in engine._index.files if f.end > f.first and f.path.endswith(".py")]
    record = files[len(files) // 2]

    def edit(name: str) -> None:
        scratch = tempfile.mkdtemp(prefix="olai-profile-")
        copy = Path(scratch) / record.rel
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(Path(record.path).read_text(errors="replace") + f"\n\ndef {name}(value):\n    return value\n")
        wall, cpu = time.perf_counter(), time.process_time()
        symbols, problem = load_file(copy, scratch)
        engine.replace_files([(record.path, [replace(s, path=record.path) for s in symbols], problem, record.rel)])
        print(f"edit {name} ({record.rel}): {(time.perf_counter() - wall) * 1000:.0f} ms wall, "
              f"{(time.process_time() - cpu) * 1000:.0f} ms CPU")

    edit("first_added_function")
    if "--prof" in sys.argv:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        edit("second_added_function")
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)
    else:
        edit("second_added_function")
    for q in QUERIES:  # warm-up
        list(engine.search(q, 10, tiers=("lexical",)))
    times = []
    for q in QUERIES * 5:
        cpu = time.process_time()
        list(engine.search(q, 10, tiers=("lexical",)))
        times.append((time.process_time() - cpu) * 1000)
    print(f"lexical query CPU median over {len(times)}: {sorted(times)[len(times) // 2]:.2f} ms")
    engine.close()


if __name__ == "__main__":
    main()
