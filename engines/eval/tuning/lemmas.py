"""How many words of the Fineli dev requests reach a word of the catalogue's names, by each way of reading them.

A request word "reaches" the catalogue when the form it is read as is a word of tuotteet.csv's Finnish
or Swedish names (folded). Ways: as typed (what the reader did before issue 20), simplemma's base form
(fi, then sv, then en: the first that changes the word), simplemma kept only where the base form is
a known word (engines/products/languages.py, what the reader does now), and Snowball's Finnish and
Swedish stems compared with the names' stems. Run from the repository root:

    python -m engines.eval.tuning.lemmas [--corpus ../shared/data/products/fineli-wholesale/tuotteet.csv]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

import Stemmer

from engines.lexical import fold
from engines.products.languages import default_words, lemmatize

_WORD = re.compile(r"[^\W\d_]+")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=ROOT.parent / "shared" / "data" / "products" / "fineli-wholesale" / "tuotteet.csv")
    args = parser.parse_args(argv)
    names = set()
    with open(args.corpus, encoding="utf-8-sig", newline="") as handle:
        for row in csv.reader(handle, delimiter=";"):
            names.update(fold(w) for cell in row[1:3] for w in _WORD.findall(cell.lower()))
    requests = [json.loads(line) for line in open(ROOT / "engines" / "eval" / "fineli" / "dev.jsonl", encoding="utf-8")]
    said = sorted({w for r in requests if r["lang"] in ("fi", "sv") for w in _WORD.findall(r["text"].lower())})
    stemmers = {lang: Stemmer.Stemmer(name) for lang, name in (("fi", "finnish"), ("sv", "swedish"))}
    stems = {lang: {s.stemWord(w) for w in names} for lang, s in stemmers.items()}
    words = default_words()

    def raw(w: str) -> str:
        for lang in ("fi", "sv", "en"):
            lemma = fold(lemmatize(w, lang))
            if lemma != fold(w):
                return lemma
        return fold(w)

    ways = {
        "as typed": lambda w: fold(w) in names,
        "simplemma, first base form": lambda w: raw(w) in names,
        "simplemma, kept where known (now)": lambda w: words.base(w) in names,
        "Snowball fi/sv stems": lambda w: any(s.stemWord(fold(w)) in stems[lang] for lang, s in stemmers.items()),
    }
    print(f"{len(said)} distinct Finnish and Swedish request words; {len(names)} catalogue name words")
    for name, reaches in ways.items():
        hit = sum(1 for w in said if reaches(w))
        print(f"{name:36s} {hit:4d}  {100 * hit / len(said):5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
