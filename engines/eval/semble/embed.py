"""Fill the vector cache for semble's repositories with several one-thread embedders at once.

    .venv/bin/python -m engines.eval.semble.embed [--split dev|heldout|both] [--jobs 2]

`olai-tui eval code --dataset semble --configs embedding,fused` embeds each repository in turn with
one two-thread llama.cpp context; on these two cores two one-thread processes embed more chunks a
second than one two-thread one (MiniLM's small matrices do not split well). Each worker takes the
largest repository left (so the two finish together), builds its code engine's embedding index as
the eval does (same texts, same cache files: one per repository, so the workers never share one),
and keeps what it embedded every 20 s. The eval run afterwards reads every vector from the cache.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time


def _sizes(repos):
    from engines.code.engine import CodeEngine

    out = []
    for repo in repos:
        engine = CodeEngine(root=repo.root, embedder=None, wait_for_index=True)
        out.append((len(engine.symbols), repo))
        engine.close()
    return sorted(out, key=lambda x: -x[0])


def _worker(queue, done) -> None:
    from engines.code.engine import CodeEngine
    from engines.embed.llama import LlamaEmbedder

    embedder = LlamaEmbedder(n_threads=1)
    while True:
        item = queue.get()
        if item is None:
            return
        size, name, root = item
        started = time.monotonic()
        engine = CodeEngine(root=root, embedder=embedder, wait_for_index=True, static=False)
        last = [0.0]

        def progress(n: int, of: int) -> None:
            if time.monotonic() - last[0] > 60 or n == of:
                last[0] = time.monotonic()
                print(f"{name} {n:,}/{of:,}", file=sys.stderr, flush=True)

        engine.build_index(progress=progress)
        engine.close()
        done.put((name, size, time.monotonic() - started))


def main() -> int:
    from engines.eval.semble.load import load_repos
    from engines.locations import shared_data

    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="dev", choices=("dev", "heldout", "both"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    repos = [r for r in load_repos(shared_data() / "code" / "semble").values()
             if args.split == "both" or r.split == args.split]
    sized = _sizes(repos)
    total = sum(s for s, _ in sized)
    print(f"{len(sized)} repositories, {total:,} chunks, {args.jobs} one-thread workers", file=sys.stderr)
    queue, done = mp.Queue(), mp.Queue()
    for size, repo in sized:
        queue.put((size, repo.name, str(repo.root)))
    for _ in range(args.jobs):
        queue.put(None)
    workers = [mp.Process(target=_worker, args=(queue, done)) for _ in range(args.jobs)]
    started = time.monotonic()
    for w in workers:
        w.start()
    finished = 0
    for _ in sized:
        name, size, seconds = done.get()
        finished += size
        print(f"done {name} ({size:,} chunks, {seconds:.0f} s); {finished:,}/{total:,} in "
              f"{(time.monotonic() - started) / 60:.1f} min", file=sys.stderr, flush=True)
    for w in workers:
        w.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
