"""A row whose place meaning changed says so beside its tier (↑/↓), as ≈ says it for a row meaning found:
from the ranks the code engine puts on each hit, in the pane's rows and in `olai-tui search`."""

from __future__ import annotations

from engines.answer import Answer, Batch, Hit, TierReport
from olai_tui.commands import print_answer
from olai_tui.places import MOVED_DOWN, MOVED_UP, places_moved
from olai_tui.ui.adapters import plain_row
from olai_tui.ui.result_cells import row_cells


def hit(name: str, tier: str, ranks: dict | None, marker: str = "") -> Hit:
    return Hit(name, name, f"{name}.py:1", tier, 0.5, marker, {"ranks": ranks} if ranks is not None else {})


def fused() -> list[Hit]:
    # lexical ranked a, b, c; meaning lifted c over b and found d, which it put between them
    return [hit("a", "lexical", {"lexical": 1}), hit("c", "lexical", {"lexical": 3, "embedding": 1}),
            hit("d", "embedding", {"embedding": 2}, "≈"), hit("b", "lexical", {"lexical": 2})]


def test_a_row_meaning_moved_among_its_tiers_rows_is_marked_and_one_it_did_not_is_not():
    assert places_moved(fused()) == {"c": MOVED_UP, "b": MOVED_DOWN}
    # in its tier's own order, with meaning's rows between: nothing moved
    in_order = [hit("a", "lexical", {"lexical": 1}), hit("d", "embedding", {"embedding": 1}, "≈"),
                hit("b", "lexical", {"lexical": 2, "embedding": 2})]
    assert places_moved(in_order) == {}
    assert places_moved([hit("n", "exact", None)]) == {}  # an engine that puts no ranks on its hits


def test_the_pane_row_says_it_beside_the_tier():
    row = hit("c", "lexical", {"lexical": 3, "embedding": 1})
    view = plain_row(row)
    from dataclasses import replace

    cells = row_cells(row, 30, 20, replace(view, moved=MOVED_UP), tier_width=9)
    assert cells[3].plain == "lexical ↑" and any(s.style == "bold magenta" for s in cells[3].spans)
    assert row_cells(row, 30, 20, view, tier_width=9)[3].plain == "lexical"


def test_the_command_line_row_says_it_and_the_legend_says_what_it_means(capsys):
    answer = Answer("code", "rate limit")
    answer.apply(Batch(fused(), [TierReport("lexical", "answered", 1.0, 3), TierReport("embedding", "answered", 1.0, 2)],
                       total=4))
    print_answer(answer)
    lines = capsys.readouterr().out.splitlines()
    tiers = [line.split()[-2:] for line in lines[:4]]
    assert [t[0] for t in tiers] == ["lexical", MOVED_UP, "embedding", MOVED_DOWN]
    assert "meaning moved the row" in lines[-1]
