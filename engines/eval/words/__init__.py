"""``words`` and ``words_fineli``: requests whose answer turns on one distinguishing word (issue 58).

Each request names a kind and a word that distinguishes within it: a source or base (oat, manteli,
soja), an animal or part (kalkkunanrinta, kycklingbröst), a property (lactose-free, osaltat, luomu), a
form (fillet, färs) or plain against flavoured (maustamaton). Half of them are for things the
catalogue does not carry: the right answer is "we do not sell that", the stand-ins after it, none
labelled exact. ``words`` runs over the demo catalogue (fixtures/products), ``words_fineli`` over the
Fineli wholesale file (../shared/data/products/fineli-wholesale/tuotteet.csv). Written by hand before
any change for issue 58 (dev-demo.jsonl, dev-fineli.jsonl: ``text``, ``lang``, ``right`` ids,
``not_sold``, ``label`` of the first rows, ``about``). Held-out requests are kept elsewhere (--queries).
Configurations: the food set's, judged by id (configs.py).
"""

from __future__ import annotations

from engines.eval.datasets import Dataset, declare


def _configs() -> tuple[str, ...]:
    from engines.eval.food.configs import CONFIGS

    return CONFIGS


def _smart() -> list[str]:
    return ["smart"]  # the set measures labels: only the judged configuration labels its rows


def _open_demo(data, heldout, progress, say, queries):
    from engines.eval.words.configs import words_suite

    return words_suite("words", None, progress, queries)


def _open_fineli(data, heldout, progress, say, queries):
    from engines.eval.words.configs import words_suite

    return words_suite("words_fineli", data, progress, queries)


QUERIES = "a request file of the same shape, scored as the held-out split"
DEMO = declare(Dataset("products", "words", _configs, _open_demo, default_configs=_smart, queries=QUERIES))
FINELI = declare(Dataset("products", "words_fineli", _configs, _open_fineli, default_configs=_smart, queries=QUERIES))
