"""`python -m engines.products.measure_readers`: the figures behind the catalogue readers' choices.

1. Encoding: the rule in tables.py (BOM, strict UTF-8, else cp1252) against charset-normalizer's best
   guess, on real files in the encodings Nordic exports come in: Fineli's own CSVs (cp1252 as THL
   publishes them), and tuotteet.csv written as UTF-8 with BOM, UTF-8, cp1252 and ISO-8859-1. A guess is
   right when the decoded text equals the file's true text.
2. Delimiter sniffing: the delimiter picked on each shared catalogue-like file.
3. Reading time: load_catalogue on tuotteet.csv (3,738 rows) against the Open Food Facts TSV reader on
   a file of similar size in the same run (median of 5).
Prints a Markdown table per part; nothing is written.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from engines.locations import shared_data
from engines.products.tables import decode, sniff_delimiter, split_lines


def _rule(data: bytes) -> str:
    return decode(data, Path("x"), [])[0]


def _charset_normalizer(data: bytes) -> str:
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return str(best) if best is not None else ""


def encodings() -> None:
    products = shared_data() / "products"
    truth = (products / "fineli-wholesale" / "tuotteet.csv").read_bytes().decode("utf-8-sig")
    cases: list[tuple[str, bytes, str]] = []
    for name in ("foodname_FI.csv", "foodname_SV.csv", "fuclass_FI.csv", "fuclass_SV.csv"):
        data = (products / "fineli" / name).read_bytes()
        cases.append((f"fineli/{name} (cp1252)", data, data.decode("cp1252")))
    for label, codec in (("UTF-8 with BOM", "utf-8-sig"), ("UTF-8", "utf-8"), ("cp1252", "cp1252"),
                         ("ISO-8859-1", "latin-1")):
        cases.append((f"tuotteet.csv as {label}", truth.encode(codec), truth))
    short = "\n".join(truth.splitlines()[:6]) + "\n"  # a six-line export: little text to guess from
    for label, codec in (("cp1252", "cp1252"), ("UTF-8", "utf-8")):
        cases.append((f"first 6 lines of tuotteet.csv as {label}", short.encode(codec), short))
    print("| file | rule (tables.py) | charset-normalizer | rule ms | charset-normalizer ms |")
    print("|---|---|---|---:|---:|")
    for label, data, text in cases:
        row = [label]
        times = []
        for guess in (_rule, _charset_normalizer):
            started = time.perf_counter()
            got = guess(data)
            times.append((time.perf_counter() - started) * 1000)
            wrong = sum(1 for a, b in zip(got.lstrip("\ufeff"), text.lstrip("\ufeff")) if a != b)
            row.append("right" if got.lstrip("\ufeff") == text.lstrip("\ufeff") else f"WRONG ({wrong} chars)")
        print(f"| {row[0]} | {row[1]} | {row[2]} | {times[0]:.1f} | {times[1]:.1f} |")


def delimiters() -> None:
    products = shared_data() / "products"
    files = [(products / "fineli-wholesale" / "tuotteet.csv", ";"), (products / "fineli" / "food.csv", ";"),
             (products / "icecat" / "ratings-dev.csv", ","), (products / "off" / "off-2016-us-2820.tsv", "\t"),
             (products / "off" / "off-2021-it-1263.tsv", "\t")]
    print("| file | true delimiter | sniffed |")
    print("|---|---|---|")
    for path, true in files:
        text = decode(path.read_bytes(), path, [])[0]
        got = sniff_delimiter(split_lines(text)[:200])
        print(f"| {path.parent.name}/{path.name} | {true!r} | {got!r}{'' if got == true else ' WRONG'} |")


def reading_time() -> None:
    from engines.products.catalogue import load_catalogue
    from engines.products.knowledge import KnowledgeMap

    products = shared_data() / "products"
    knowledge = KnowledgeMap.load()
    print("| catalogue | reader | rows | median s (5 runs) |")
    print("|---|---|---:|---:|")
    for path, reader in ((products / "off" / "off-2016-us-2820.tsv", "off.py (baseline)"),
                         (products / "fineli-wholesale" / "tuotteet.csv", "exported.py")):
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            catalogue = load_catalogue(path, knowledge)
            runs.append(time.perf_counter() - started)
        print(f"| {path.name} | {reader} | {len(catalogue):,} | {statistics.median(runs):.3f} |")


def main() -> int:
    print(f"## Catalogue readers, measured {time.strftime('%Y-%m-%d')}\n")
    for part in (encodings, delimiters, reading_time):
        part()
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
