"""The exact tier's answers as JSON, to compare two checkouts byte for byte (docs/bench-notes.md).

    python engines/eval/bench/notes/checkouts/exact_answers.py CHECKOUT [VAULT] > answers.json

CHECKOUT: the tree whose engines/ answers (put first on the path). Queries: Vaswani's 93, 400 of
their words, and a few accented, non-Latin and punctuation words; corpora: Vaswani's abstracts and,
when given, a vault folder (tools/make_vault.py). Each answer: the top 10 ids and scores, then the total.
"""

from __future__ import annotations

import json
import sys

sys.path.insert(0, sys.argv[1])

from engines.eval.vaswani.load import load_vaswani  # noqa: E402
from engines.locations import shared_data  # noqa: E402
from engines.notes.exact import ExactMatcher  # noqa: E402

EXTRA = ["pulse", "the", "✓", "naïve", "é", "ß strasse", "STRASSE", "c++", "x-ray", "über", "ﬁ", "magnetic field", "a"]


def main() -> None:
    collection = load_vaswani(shared_data() / "notes" / "vaswani")
    asked = list(collection.queries.values())
    queries = asked + EXTRA + sorted({w for q in asked for w in q.split()})[:400]
    corpora: list[tuple] = [("vaswani", collection.notes)]
    if len(sys.argv) > 2:
        from engines.notes.engine import NotesEngine

        engine = NotesEngine(sys.argv[2])
        corpora.append(("vault", engine.notes, engine._exact))  # the engine's own: a warm open's is read back
    out = {}
    for name, notes, *matcher in corpora:
        matcher = matcher[0] if matcher else ExactMatcher(notes)
        for query in queries:
            result = matcher.search(query, 10)
            out[f"{name}:{query}"] = [[h.id, h.score] for h in result.hits] + [result.total]
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
