"""Write engines/products/lemmas.tsv: simplemma's Finnish, Swedish and English dictionary entries whose
base form, or whose form, is a word the products reader can keep (issue 58).

Why: the reader keeps a base form only where the lexicon (words.json: Fineli's words and their
translations, the English phrases' words) knows it or where it splits into known words. simplemma
answers from dictionaries it builds on first use: fi 3.5 M forms, sv 0.96 M, en 0.18 M, 5.7 s on the 2
shared cores (cProfile of `search products "oat milk"`: 4.7 M calls to frontcode._iter_records), which
every one-shot search paid for the first word that reached it. The entries whose base form the reader
could ever keep are about 60 thousand; shipped as a table, simplemma runs its own strategies (rules,
affixes, clitics) over this dictionary in microseconds.

Run again whenever words.json or simplemma changes:
    python tools/lemma_table.py
Provenance: simplemma 2.0.0's dictionaries (MIT licence, built from Wiktionary and other open lexica).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from simplemma.strategies.dictionaries.dictionary_factory import _load_dictionary_from_disk

    from engines.lexical import fold
    from engines.products.languages import LANGS, LEMMA_FILE, Words

    words = Words.load()
    known = set(words.lexicon) | set(words.translations_of)
    for phrase, said in words.phrases.items():
        known.update(phrase.replace("*", " ").split())
    compound: dict[str, bool] = {}

    def keeps(lemma: str) -> bool:
        if lemma in known:
            return True
        if lemma not in compound:
            compound[lemma] = words.splitter.is_compound(lemma)
        return compound[lemma]

    rows = []
    for lang in LANGS:
        for form, lemma in _load_dictionary_from_disk(lang).items():
            form, lemma = form.decode(), lemma.decode()
            # an entry for a known word stays even when it is its own base form: it stops simplemma's
            # strategies cutting it ("laktoositon" is no "laktoosi")
            if keeps(fold(lemma)) or keeps(fold(form)):
                rows.append(f"{lang}\t{form}\t{lemma}\n")
    rows.sort()
    tmp = LEMMA_FILE.with_suffix(".tmp")
    tmp.write_text("".join(rows), encoding="utf-8")
    tmp.replace(LEMMA_FILE)
    print(f"wrote {LEMMA_FILE.relative_to(ROOT)}: {len(rows)} forms")


if __name__ == "__main__":
    main()
