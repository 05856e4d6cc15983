"""The `food` request set: requests written by hand over the default food catalogue, before any tuning.

``requests.jsonl``, one request a line: ``text``; ``lang`` (en, fi, sv, mixed, it, code); ``kinds``
(knowledge-map kinds that count as the thing itself); ``standins`` (kinds that count as a stand-in);
``rules`` (``claims`` the answer must carry, allergens to ``avoid``); ``not_sold`` (the catalogue has
nothing that is the thing and keeps the rules); optional ``brand``, ``pack``, ``code``; ``about``
(what the request exercises). A third is held out, chosen by a hash of the text (``split_of``):
nothing may be tuned by looking at those.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

REQUESTS = Path(__file__).resolve().parent / "requests.jsonl"
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

    @property
    def split(self) -> str:
        return split_of(self.text)


def split_of(text: str) -> str:
    """'heldout' for a third of the requests, by the first byte of sha256(text); 'dev' for the rest."""
    return "heldout" if hashlib.sha256(text.encode("utf-8")).digest()[0] % 3 == 0 else "dev"


class FoodSetError(ValueError):
    """A malformed line: the message names the file and line."""


def load_food_requests(split: Split = "both", path: str | Path = REQUESTS) -> list[FoodRequest]:
    path = Path(path)
    out: list[FoodRequest] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                request = FoodRequest(
                    raw["text"], raw.get("lang", ""), tuple(raw["kinds"]), tuple(raw.get("standins", ())),
                    tuple(raw.get("rules", {}).get("claims", ())), tuple(raw.get("rules", {}).get("avoid", ())),
                    bool(raw.get("not_sold")), raw.get("brand"), raw.get("pack"), raw.get("code"),
                    tuple(raw.get("about", ())))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise FoodSetError(f"{path}:{number}: malformed request ({exc.__class__.__name__}: {exc})") from None
            if split == "both" or request.split == split:
                out.append(request)
    return out
