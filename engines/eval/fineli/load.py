"""Request sets judged by product id: ``fineli`` over the wholesale file and ``food_fisv`` over the demo catalogue.

``fineli``: ``dev.jsonl`` here, buyer requests over ../shared/data/products/fineli-wholesale/tuotteet.csv
(Fineli's 3,738 foods with Finnish and Swedish names) in Finnish, Swedish, English and mixed, written
before any tuning; each names the food ids (``FI0xxxx``) a buyer would take as the thing. ``food_fisv``:
``engines/eval/food/fisv-dev.jsonl``, Finnish and Swedish requests over the demo catalogue with the
acceptable product ids and the rules the words state. One object a line: ``text``, ``lang`` (fi, sv,
en, mixed), ``right`` (ids), optional ``rules`` (``claims``, ``avoid``). A held-out file of the same
shape beside the other held-out sets (``../shared/heldout/products/<HELDOUT[name]>``) is read when
present, to report only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engines.eval.datasets import DataFileError
from engines.eval.requests_file import read_requests

HERE = Path(__file__).resolve().parent
DEV = {"fineli": HERE / "dev.jsonl", "food_fisv": HERE.parent / "food" / "fisv-dev.jsonl"}
HELDOUT = {"fineli": "fineli-requests-heldout.jsonl", "food_fisv": "food-fisv-requests-heldout.jsonl"}
LANGS = ("fi", "sv", "en", "mixed")


class IdSetError(DataFileError):
    """A malformed line: the message names the file and line."""


@dataclass(frozen=True)
class IdRequest:
    text: str
    lang: str
    right: frozenset[str]
    claims: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()


def load_id_requests(path: str | Path) -> list[IdRequest]:
    def request(raw: dict) -> IdRequest:
        rules = raw.get("rules") or {}
        return IdRequest(raw["text"], raw.get("lang", ""), frozenset(raw["right"]),
                         tuple(rules.get("claims", ())), tuple(rules.get("avoid", ())))

    return read_requests(path, request, IdSetError)
