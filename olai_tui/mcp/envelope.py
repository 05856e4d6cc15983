"""What the MCP tools return: the answer envelope with each hit's ``matched``, and a short text rendering.

``matched`` tells an agent how far to trust a row, from the engine's own declarations (never from
engine names): a row marked ``≈`` was found by meaning (resemblance worth checking, never evidence);
a row of one of the engine's ``evidence_tiers`` matched the words (``exact`` for a tier named exact,
else ``words``); a row a judge labelled (it carries ``label``) is ``judged``; any other row was
recalled without evidence and is treated as ``meaning``: the cautious reading.
"""

from __future__ import annotations

from typing import Any

from engines.answer import RESEMBLANCE, Answer
from engines.terminal_text import one_line, shown

MATCHED = ("exact", "words", "meaning", "judged")
TEXT_ROWS = 10  # rows in the text rendering; the structured content carries them all


def matched(hit: dict[str, Any], evidence_tiers: tuple[str, ...]) -> str:
    if RESEMBLANCE in (hit.get("marker") or ""):
        return "meaning"
    if hit.get("tier") in evidence_tiers:
        return "exact" if hit["tier"] == "exact" else "words"
    if hit.get("label"):
        return "judged"
    return "meaning"


def search_result(answer: Answer, evidence_tiers: tuple[str, ...]) -> dict[str, Any]:
    out = answer.to_json()
    for hit in out["hits"]:
        hit["matched"] = matched(hit, evidence_tiers)
    indexing = [t for t in out["tiers"] if t["status"] == "indexing"]
    if indexing:
        out["indexing"] = {t["name"]: {k: t[k] for k in ("done", "of", "reason") if t.get(k) is not None}
                           for t in indexing}
    return out


def search_text(result: dict[str, Any]) -> str:
    lines = []
    for number, hit in enumerate(result["hits"][:TEXT_ROWS], start=1):
        label = f" {hit['label']}" if hit.get("label") else ""
        checks = f" [{'; '.join(map(str, hit['checks']))}]" if hit.get("checks") else ""
        # a row a line: a title's or a path's controls pictured, its line breaks as spaces (the client may
        # show this text in a terminal; the structured content keeps the exact text)
        lines.append(one_line(f"{number}. {hit['matched']}{label} {hit['marker'] or ''} {hit['title']} - "
                              f"{hit['where']}{checks} (id {hit['id']})"))
    more = len(result["hits"]) - TEXT_ROWS
    if more > 0:
        lines.append(f"... {more} more rows in the structured content")
    if not result["hits"]:
        lines.append("no rows")
    lines.append(f"total {result['total']} · " + " · ".join(tier_line(t) for t in result["tiers"]))
    return shown("\n".join(lines))


def tier_line(tier: dict[str, Any]) -> str:
    text = f"{tier['name']}: {tier['status']}"
    if tier["status"] == "indexing" and tier.get("of") is not None:
        text += f" {tier.get('done')}/{tier.get('of')}"
    elif tier["status"] in ("answered", "empty") and tier.get("count") is not None:
        text += f" {tier['count']}"
    for key in ("reason", "enable"):
        if tier.get(key):
            text += f" ({'to enable: ' if key == 'enable' else ''}{tier[key]})"
    return text


def status_result(name: str, status, tiers: tuple[str, ...], default_tiers: tuple[str, ...],
                  evidence_tiers: tuple[str, ...], model_tiers: tuple[str, ...], error: str | None) -> dict[str, Any]:
    """One engine's state for the status tool: corpus, index done/of, which tiers can answer and why not."""
    if status is None:
        return {"engine": name, "corpus": "", "items": 0, "ready": False, "error": error or "not open",
                "tiers": [], "can_answer": [], "cannot_answer": [], "notices": []}
    out = status.to_json()
    out["engine"] = out.pop("name")
    out["ready"] = True
    for tier in out["tiers"]:
        tier["evidence"] = tier["name"] in evidence_tiers
        tier["needs_model"] = tier["name"] in model_tiers
        tier["default"] = tier["name"] in default_tiers
    able = ("answered", "empty", "skipped", "indexing")
    out["can_answer"] = [t["name"] for t in out["tiers"] if t["status"] in able]
    out["cannot_answer"] = [{k: t[k] for k in ("name", "status", "reason", "enable") if t.get(k) is not None}
                            for t in out["tiers"] if t["status"] not in able]
    building = [t for t in out["tiers"] if t["status"] == "indexing"]
    if building:
        out["index"] = {"state": "indexing", **{k: building[0][k] for k in ("done", "of", "reason")
                                                 if building[0].get(k) is not None}}
    return out


def status_text(engines: list[dict[str, Any]]) -> str:
    lines = []
    for e in engines:
        if not e["ready"]:
            lines.append(f"{e['engine']}: {e['error']}")
            continue
        lines.append(f"{e['engine']}: {e['items']:,} items in {e['corpus']} · "
                     + " · ".join(tier_line(t) for t in e["tiers"]))
    return shown("\n".join(lines))
