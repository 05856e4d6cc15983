"""A public dataset's dev queries treated as a person's grades: does `tune`'s cross-validated choice
score at least the shipped setting on the held-out split it never saw? A developer's check (issue 62):

    .venv/bin/python -m engines.eval.tune.public notes vaswani --config merged [--budget 30]

It tunes the configuration ``--config`` (the shipped answer) on the dev split exactly as `olai-tui tune`
does on a person's grades (the same candidates, folds and figure), then scores the shipped setting and
the chosen one on the held-out split, and prints the time the tune took. Figures: docs/tuning.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv: list[str] | None = None) -> int:
    from engines.eval import catalogue  # noqa: F401 - every shipped dataset declared
    from engines.eval.datasets import declared
    from engines.eval.tune.folds import FOLDS
    from engines.eval.tune.search import BUDGET, scored_with, tune
    from engines.knobs import knobs_of
    from engines.locations import shared_data, shared_heldout
    from engines.registry import spec

    p = argparse.ArgumentParser(prog="engines.eval.tune.public")
    p.add_argument("engine")
    p.add_argument("dataset")
    p.add_argument("--config", required=True, help="the configuration that is the shipped answer (notes: merged)")
    p.add_argument("--budget", type=int, default=BUDGET)
    p.add_argument("--folds", type=int, default=FOLDS)
    args = p.parse_args(argv)
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    knobs = knobs_of(spec(args.engine).engine_class())
    suite = declared(args.engine, args.dataset).open(shared_data(), shared_heldout(), None, say, None)
    try:
        answer = suite.factories[args.config]()
        dev = [r for r in suite.requests if r.split == "dev"]
        held = [r for r in suite.requests if r.split == "heldout"]
        say(f"{args.dataset}: {len(dev)} dev queries tuned on, {len(held)} held out")
        started = time.monotonic()
        tuned = tune(answer, knobs, dev, args.budget, args.folds,
                     progress=lambda d, o: say(f"tune {d}/{o}") if d % max(1, o // 10) == 0 else None)
        took = time.monotonic() - started
        scores = scored_with(answer, knobs, held, {"shipped": tuned.today, "tuned": tuned.best}, args.dataset)
        scores["adopted"] = scores["shipped"] if tuned.why_not() else scores["tuned"]
    finally:
        suite.close()
    out = tuned.to_json() | {"dataset": args.dataset, "config": args.config, "tune_seconds": round(took, 1),
                             "heldout_queries": len(held), "heldout_shipped": scores["shipped"],
                             "heldout_tuned": scores["tuned"],
                             "heldout_adopted": scores["adopted"], "not_adopted": tuned.why_not() or None}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
