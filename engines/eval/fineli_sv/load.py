"""The ``fineli_sv`` requests: one JSON object a line, ``text``, ``lang`` (sv, fi, en), ``right`` (the
catalogue ids a buyer would take as the thing; empty for a food not carried), optional ``not_sold``
(true: the right answer is "we do not sell that") and ``about`` (what the request exercises)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engines.eval.datasets import DataFileError
from engines.eval.requests_file import read_requests

HERE = Path(__file__).resolve().parent
DEV = HERE / "dev.jsonl"
CATALOGUE = HERE / "katalog.csv"
LANGS = ("sv", "fi", "en")


class SwedishSetError(DataFileError):
    """A malformed line: the message names the file and line."""


@dataclass(frozen=True)
class SwedishRequest:
    text: str
    lang: str
    right: frozenset[str]
    not_sold: bool = False
    about: str = ""
    claims: tuple[str, ...] = ()  # the id-judged scoring's rules: none stated in this set
    avoid: tuple[str, ...] = ()


def load_swedish_requests(path: str | Path = DEV) -> list[SwedishRequest]:
    def request(raw: dict) -> SwedishRequest:
        not_sold = bool(raw.get("not_sold"))
        if not not_sold and not raw["right"]:
            raise KeyError("right (empty, and not_sold is not said)")
        return SwedishRequest(raw["text"], raw["lang"], frozenset(raw["right"]), not_sold, raw.get("about", ""))

    return read_requests(path, request, SwedishSetError)
