"""How a products answer reads on the terminal: the words as read, "we do not sell that", a badge per
judged row, and the tier chips with the path that ordered the rows (`olai-tui search products`)."""

from __future__ import annotations

import os
import sys

from engines.terminal_text import one_line, print_bold

BADGES = {"exact": "=", "variant": "~", "standin": "»", None: " "}


def print_products(answer, stream=None) -> None:
    out = stream or sys.stdout
    u = answer.extras.get("understood", {})
    read = [f"{k}: {', '.join(v) if isinstance(v, list) else v}" for k, v in u.items()
            if v and k not in ("notes", "words")]
    print("understood: " + ("; ".join(read) or "nothing"), file=out)
    if u.get("words"):  # every word said and what it became (issue 58)
        print("  words: " + "; ".join(f"{w['word']} {w['as']}" for w in u["words"]), file=out)
    for note in u.get("notes", []):
        print(f"  note: {note}", file=out)
    flags = answer.extras.get("flags", [])
    if "not_sold" in flags:
        print("we do not sell that" + (" - instead:" if "only_standins" in flags else ""), file=out)
        why = why_not_sold(answer.extras.get("not_sold"))
        if why:
            print(f"  why: {why}", file=out)
    for hit in answer.hits:
        label = hit.extras.get("label")
        title = one_line(hit.title)[:56]  # shown before padding, so a pictured row keeps its columns
        print(f"{BADGES.get(label, ' ')} {hit.marker or ' '} {title:<56} {(label or hit.tier):<8} "
              f"{hit.extras.get('quantity') or '':>10}  {', '.join(hit.extras.get('checks', []))[:60]}", file=out)
    if not answer.hits:
        print("(no products)", file=out)
    chips = [f"{t.name}: {t.status}" + (f" {t.ms:.1f} ms" if t.ms is not None else "") for t in answer.tiers]
    if answer.extras.get("recall_backend"):
        chips.append(f"recall via {answer.extras['recall_backend']}"
                     + (f" ({answer.extras['recall_fallback']})" if answer.extras.get("recall_fallback") else ""))
    line = " · ".join(chips) + f" · path {answer.extras.get('path')}" + (f" ({answer.extras['reason']})"
                                                                          if answer.extras.get("reason") else "")
    bold = out.isatty() and not os.environ.get("NO_COLOR") if hasattr(out, "isatty") else False
    print_bold(line, out, bold)


def why_not_sold(reason: dict | None) -> str:
    """The envelope's ``not_sold`` in one line: what was looked for, and the nearest row recall found
    with why it is not the thing ("looked for crispbread; recall's nearest, 2 MINI BAGUETTES: standin,
    a bread can stand in for crispbread")."""
    if not reason:
        return ""
    looked = ", ".join(reason.get("kinds") or reason.get("parts") or []) or "the words"
    recalled = reason.get("recalled") or []
    if not recalled:
        return f"looked for {looked}; recall found nothing near it"
    first = recalled[0]
    more = f" (and {len(recalled) - 1} more)" if len(recalled) > 1 else ""
    return f"looked for {looked}; recall's nearest, {first.get('name')}{more}: {first.get('label')}, {first.get('why')}"
