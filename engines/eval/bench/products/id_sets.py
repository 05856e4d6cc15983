"""Smart (recall + the rules judge) over an id-judged request set, words only (no vectors), quickly.

For measuring one recall source's share without the evaluation's vectors and cache: right first, in
top 3 and rule breaks in the top 3 over ``fineli`` (tuotteet.csv) or ``food_fisv`` (the demo
catalogue), per language, with any sources left out. Run from the repository root:

    python -m engines.eval.bench.products.id_sets fineli [--without translated] [--show-misses] [--vectors]

``--vectors`` keeps the vectors source (built once, as the evaluation's ``smart`` row): the same figures
as ``eval products --dataset fineli --configs smart`` without its answer cache (91.6 % both ways at main
11012dc).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]

from engines.eval.fineli.load import DEV, load_id_requests
from engines.eval.fineli.configs import score
from engines.locations import shared_data
from engines.products.engine import ProductsEngine
from engines.products.recall import SOURCES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", choices=sorted(DEV))
    parser.add_argument("--without", default="", help="sources to leave out, comma-separated")
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--vectors", action="store_true", help="keep the vectors source (the smart row)")
    args = parser.parse_args(argv)
    dropped = {s for s in args.without.split(",") if s} | (set() if args.vectors else {"vectors"})
    sources = tuple(s for s in SOURCES if s not in dropped)
    corpus = (shared_data() / "products" / "fineli-wholesale" / "tuotteet.csv" if args.dataset == "fineli"
              else ROOT / "fixtures" / "products")
    engine = ProductsEngine(corpus, wait_for_index=args.vectors)
    if args.vectors:
        engine.build_index()
    requests = load_id_requests(DEV[args.dataset])
    total: collections.Counter = collections.Counter()
    per_lang: collections.Counter = collections.Counter()
    for r in requests:
        answer = engine.answer(r.text, limit=40, sources=sources)
        products = [engine.products[engine.catalogue.by_id[h.id]] for h in answer.hits]
        s = score(products, r, [h.extras.get("label") for h in answer.hits])
        total.update({k: s[k] for k in ("right_first", "in_top3", "dropped")})
        per_lang[r.lang] += 1
        total[f"right_first_{r.lang}"] += s["right_first"]
        if args.show_misses and not s["right_first"]:
            print(f"  [{r.lang}] {r.text!r}: " + "; ".join(p.name[:40] for p in products[:3]))
    n = len(requests)
    print(f"{args.dataset} smart, without {sorted(dropped) or 'nothing'}: right first {100 * total['right_first'] / n:.1f} %, "
          f"in top 3 {100 * total['in_top3'] / n:.1f} %, rule breaks in top 3 {int(total['dropped'])}; " +
          ", ".join(f"{lang} {100 * total[f'right_first_{lang}'] / c:.0f} %" for lang, c in sorted(per_lang.items())) +
          f" ({n} requests)")
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
