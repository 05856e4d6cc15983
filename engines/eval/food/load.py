"""The `food` request set: requests written by hand over the default food catalogue, before any tuning.

``requests.jsonl``, one request a line: ``text``; ``lang`` (en, fi, sv, mixed, it, code); ``kinds``
(knowledge-map kinds that count as the thing itself); ``standins`` (kinds that count as a stand-in);
``rules`` (``claims`` the answer must carry, allergens to ``avoid``); ``not_sold`` (the catalogue has
nothing that is the thing and keeps the rules); optional ``brand``, ``pack``, ``code``; ``about``
(what the request exercises). A third is held out, chosen by a hash of the text (``split_of``):
nothing may be tuned by looking at those. ``words-dev.jsonl`` (the ``food_words`` set, issue 58) is the same
shape and every request in it is dev: words that narrow a kind (fresh, sliced, without soy, plurals, a brand's
words), written after food held out fell, to find on dev what the distinguishing rules get wrong.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engines.eval.datasets import DataFileError
from engines.eval.requests_file import read_requests

REQUESTS = Path(__file__).resolve().parent / "requests.jsonl"
WORDS = Path(__file__).resolve().parent / "words-dev.jsonl"  # all dev: no held-out half
Split = Literal["dev", "heldout", "both"]


@dataclass(frozen=True)
class FoodRequest:
    text: str
    lang: str
    kinds: tuple[str, ...]
    standins: tuple[str, ...]
    claims: tuple[str, ...]
    avoid: tuple[str, ...]
    not_sold: bool
    brand: str | None = None
    pack: str | None = None
    code: str | None = None
    about: tuple[str, ...] = field(default=())
    fixed_split: str = ""  # a file that is all dev (words-dev.jsonl) says so; otherwise the hash of the text

    @property
    def split(self) -> str:
        return self.fixed_split or split_of(self.text)


def split_of(text: str) -> str:
    """'heldout' for a third of the requests, by the first byte of sha256(text); 'dev' for the rest."""
    return "heldout" if hashlib.sha256(text.encode("utf-8")).digest()[0] % 3 == 0 else "dev"


class FoodSetError(DataFileError):
    """A malformed line: the message names the file and line."""


def load_food_requests(split: Split = "both", path: str | Path = REQUESTS, all_dev: bool = False) -> list[FoodRequest]:
    def request(raw: dict) -> FoodRequest:
        rules = raw.get("rules", {})
        return FoodRequest(raw["text"], raw.get("lang", ""), tuple(raw["kinds"]), tuple(raw.get("standins", ())),
                           tuple(rules.get("claims", ())), tuple(rules.get("avoid", ())), bool(raw.get("not_sold")),
                           raw.get("brand"), raw.get("pack"), raw.get("code"), tuple(raw.get("about", ())),
                           "dev" if all_dev else "")

    return [r for r in read_requests(path, request, FoodSetError) if split == "both" or r.split == split]
