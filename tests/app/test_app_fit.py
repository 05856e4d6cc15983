"""Words that fit the width they are given: the footer's chips, the compare heads and the evaluation's
figures give up detail a step at a time and are never wrapped or cut inside a word (no engine, no app)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engines.answer import Answer, Batch, TierReport
from olai_tui.ui.evaluation_fit import figures_that_fit
from olai_tui.ui.footer import footer_text

UNAVAILABLE = TierReport("semantic", "unavailable", reason="no model file at /x/all-MiniLM-L6-v2.Q8_0.gguf",
                         enable="reinstall olai-tui (the model ships inside it) or set OLAI_EMBED_MODEL=/path")


def products_like() -> Answer:
    answer = Answer("products", "laktoositon maito 1 l")
    answer.apply(Batch([], [TierReport("exact", "empty", 0.4), TierReport("recall", "answered", 12.0, 16),
                            TierReport("vectors", "off", enable="ctrl+p › turn the vectors tier on"),
                            TierReport("judge", "answered", 3.0, 16)], total=16))
    return answer


def words_of(text: str) -> set[str]:
    """The words of a text, without the punctuation a shorter form may leave off after one ("none:")."""
    return {word.rstrip(":;,") for word in text.replace("\n", " ").split()}


@pytest.mark.parametrize("width", [78, 100, 158])
def test_the_chips_fit_one_line_and_every_word_on_it_is_whole(width):
    tiers = ("exact", "recall", "vectors", "judge")
    full = footer_text(tiers, products_like(), {}, False).plain
    fitted = footer_text(tiers, products_like(), {}, False, width=width).plain
    assert "\n" not in fitted and len(fitted) <= width
    assert words_of(fitted) <= words_of(full), "abbreviated by leaving words out, never by cutting one"
    assert all(name in fitted for name in tiers) and "total 16" in fitted
    assert len(full) > 158, "the whole line is wider than every width tried"


def test_detail_is_given_up_in_steps_hint_first_then_times():
    tiers = ("exact", "recall", "vectors", "judge")
    roomy = footer_text(tiers, products_like(), {}, False, width=158).plain
    assert "to enable" not in roomy and "12 ms" in roomy, "at 158 only the hint went"
    narrow = footer_text(tiers, products_like(), {}, False, width=78).plain
    assert "ms" not in narrow and "recall 16 rows" in narrow


def test_a_tier_that_cannot_answer_says_why_and_how_on_a_line_of_its_own_when_its_chip_is_short():
    answer = Answer("notes", "q")
    answer.apply(Batch([], [TierReport("exact", "answered", 1.0, 3), UNAVAILABLE], total=3))
    lines = footer_text(("exact", "semantic"), answer, {}, False, width=60).plain.splitlines()
    assert len(lines[0]) <= 60 and "semantic unavailable" in lines[0]
    assert lines[1].startswith("semantic unavailable: no model file at") and "OLAI_EMBED_MODEL=/path" in lines[1]


def test_the_figures_table_keeps_the_first_figures_that_fit_and_names_the_rest():
    metrics = {name: {f: 0.5 for f in ("ndcg@10", "mrr@10", "recall@100")} for name in ("exact", "hybrid_rrf")}
    tables = [SimpleNamespace(split=s, metrics=metrics) for s in ("dev", "heldout")]
    figures = ("ndcg@10", "mrr@10", "recall@100")
    assert figures_that_fit(figures, tables, frozenset(), None) == (list(figures), [])
    # config 10 + 2 + 2 scrollbar; ndcg@10 (7+2) x 2 splits = 18 → 32; mrr@10 → 50; recall@100 (10+2) x 2 → 74
    assert figures_that_fit(figures, tables, frozenset(), 60) == (["ndcg@10", "mrr@10"], ["recall@100"])
    assert figures_that_fit(figures, tables, frozenset(), 74) == (list(figures), [])
    assert figures_that_fit(figures, tables, frozenset(), 10) == (["ndcg@10"], ["mrr@10", "recall@100"])


@pytest.mark.parametrize("width", [24, 36, 60])
def test_a_compare_head_fits_its_column_and_agrees_with_the_columns(width):
    from engines.answer import Hit
    from engines.contract import Comparison
    from olai_tui.ui.compare import ColumnResult, column_text, shared_ids

    def result(column: Comparison, hits: list[Hit], reports: list[TierReport]) -> ColumnResult:
        answer = Answer("notes", "seedlings")
        answer.apply(Batch(hits, reports, total=len(hits)))
        return ColumnResult(column, answer, 1.0, [h.id for h in hits])

    slugs, garlic = Hit("a", "Slugs", "a.md", "exact", 3.0), Hit("b", "Garlic", "b.md", "semantic", 0.4, "≈")
    results = [result(Comparison("exact", ("exact",)), [slugs], [TierReport("exact", "answered", 1.0, 1)]),
               result(Comparison("words", ("words",)), [Hit("a", "Slugs", "a.md", "words", 1.4)],
                      [TierReport("words", "answered", 1.0, 1)]),
               result(Comparison("merged", ("exact", "words", "semantic"), combined=True), [slugs, garlic],
                      [TierReport("exact", "answered", 1.0, 1), TierReport("words", "empty", 1.0),
                       TierReport("semantic", "answered", 1.0, 1)])]
    heads = [column_text(r, shared_ids(results), results=results, width=width)[0].plain for r in results]
    full = [column_text(r, shared_ids(results), results=results)[0].plain for r in results]
    for head, whole in zip(heads, full):
        assert all(len(line) <= width for line in head.splitlines()), head
        assert words_of(head) <= words_of(whole) | {"2◆", "1◆", "0◆", "only", "had", "them"}
    assert "words added none" in heads[2] and "words empty" not in heads[2]
