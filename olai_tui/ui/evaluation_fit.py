"""The evaluation view's words and figures at the width they are given: nothing wrapped, cut mid-word or
wider than the screen (olai_tui/ui/evaluation.py shows them).

The figures table keeps the dataset's figures from the first (the ones a reader compares first: nDCG,
MRR) for as long as their columns fit beside the configuration's; the rest are named in a line under it
with how to see them (one split at a time, a wider terminal, or `olai-tui eval`, which prints them all).
"""

from __future__ import annotations

from typing import Sequence

from rich.cells import cell_len
from rich.text import Text

from olai_tui.evaluate import cell
from olai_tui.ui.request_view import WRONG
from olai_tui.ui.text import first_fitting, one_line

__all__ = ["title_text", "requests_head", "request_prompt", "figures_that_fit", "left_out_line", "first_fitting"]

CELL_PADDING = 2  # DataTable's cell_padding of 1, each side
SCROLLBAR = 2


def title_text(width: int | None) -> Text:
    variants = []
    for rest in ("   the same figures as `olai-tui eval`", "   as `olai-tui eval`", ""):
        title = Text("Evaluation: each configuration over a dataset's judged requests", style="bold", end="")
        title.append(rest, style="dim")
        variants.append(title)
    variants.append(Text("Evaluation: each configuration on a dataset", style="bold", end=""))
    return first_fitting(variants, width)


def requests_head(width: int | None) -> Text:
    return first_fitting([Text(said, end="") for said in (
        "requests   ✗: some configuration's first row is wrong   Enter opens one",
        "requests   ✗: a first row wrong   Enter opens one",
        "requests   ✗ first row wrong",
        "requests")], width)


def figures_that_fit(figures: Sequence[str], tables, percent, room: int | None) -> tuple[list[str], list[str]]:
    """(figures shown, figures left out) so that the table's columns fit ``room`` cells (None: all)."""
    if room is None:
        return list(figures), []
    names = list(tables[0].metrics) if tables else []
    used = max([cell_len("config"), *(cell_len(n) for n in names)]) + CELL_PADDING + SCROLLBAR
    shown: list[str] = []
    for i, figure in enumerate(figures):
        width = sum(max([cell_len(figure), cell_len(t.split), *(cell_len(cell(figure, t.metrics[n], percent))
                                                                 for n in names)]) + CELL_PADDING for t in tables)
        if used + width > room and shown:
            return shown, list(figures[i:])
        used += width
        shown.append(figure)
    return shown, []


def left_out_line(left_out: Sequence[str], splits: int, width: int | None) -> Text:
    """``+3 figures past the width: recall@100, p50_ms, p90_ms (one split, a wider terminal or `olai-tui eval`)``"""
    count = f"+{len(left_out)} figure" + ("s" if len(left_out) != 1 else "") + " past the width"
    how = "one split, a wider terminal or `olai-tui eval`" if splits > 1 else "a wider terminal or `olai-tui eval`"
    return first_fitting([Text(f"{count}: {', '.join(left_out)} ({how})", style="dim", end=""),
                          Text(f"{count}: {', '.join(left_out)}", style="dim", end=""),
                          Text(count, style="dim", end="")], width)


def request_prompt(split: str, row: dict, wrong: Sequence[str], width: int | None) -> Text:
    """A request in the list: ✗ where some configuration's first row is wrong, then which ones, as room allows."""
    def prompt(detail: str) -> Text:
        out = Text(f"{WRONG if wrong else ' '} ", style="bold red", end="")
        out.append(f"{split:<7} {row['id']:>6}  ", style="dim")
        out.append(one_line(row["query"]))
        if detail:
            out.append(detail, style="dim")
        return out

    return first_fitting([prompt(f"   first row wrong: {', '.join(wrong)}" if wrong else ""),
                          prompt(f"   {len(wrong)} first rows wrong" if len(wrong) > 1 else ""), prompt("")], width)
