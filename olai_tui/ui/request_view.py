"""One request of an evaluation, each configuration's top rows side by side, judged: ✓ right, ✗ wrong
(with its gain or label), a wrong first row drawn red and said in its column's head, ⚠ rule where a
product breaks a rule the request stated."""

from __future__ import annotations

from typing import Callable, Sequence

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Footer, Static

from engines.eval.suite import Suite, Verdict
from olai_tui.evaluate import cell
from olai_tui.ui.columns import side_by_side
from olai_tui.ui.footer import format_ms
from olai_tui.ui.keys import binding
from olai_tui.ui.text import one_line

RIGHT, WRONG, RULE, UNRATED = "✓", "✗", "⚠ rule", "?"
FIRST_WRONG = f"{WRONG} first row wrong"
LEGEND = f"{RIGHT} right  {WRONG} wrong (gain or label)  {RULE}: breaks a stated rule  red: a wrong first row"


def shown_name(dataset: str) -> str:
    """A dataset as the view names it: a person's own grades are "your grades"."""
    from engines.eval.judgements.suite import DATASET, SHOWN

    return SHOWN if dataset == DATASET else dataset


def judgement(verdict: Verdict) -> str:
    """The gain as judged (1, 0, 2.5), or the configuration's own label where the dataset has no gains (food)."""
    if verdict.unrated:
        return "unrated"
    parts = []
    if verdict.gain is not None:
        parts.append(f"{verdict.gain:g}")
    if verdict.label:
        parts.append(verdict.label)
    return " ".join(parts) or "—"


def verdict_rows(verdicts: Sequence[Verdict]) -> Text:
    """One line per row: `rank ✓/✗ judgement [⚠ rule] title`; a wrong first row in bold red."""
    rows = Text(no_wrap=True, overflow="ellipsis", end="")
    for n, verdict in enumerate(verdicts):
        wrong_first = n == 0 and not verdict.right and not verdict.unrated
        line = Text(f"{n + 1:>2} ", style="dim", end="")
        if verdict.unrated:  # nobody graded it for this query: neither right nor wrong, a guess
            line.append(UNRATED, style="bold yellow")
        else:
            line.append(RIGHT if verdict.right else WRONG, style="bold green" if verdict.right else "bold red")
        line.append(f" {judgement(verdict)} ", style="bold red" if wrong_first else "dim")
        if verdict.broke_rule:
            line.append(RULE + " ", style="bold red")
        line.append(one_line(verdict.title or verdict.id), style="bold red" if wrong_first else "")
        if n:
            rows.append("\n")
        rows.append_text(line)
    if not verdicts:
        rows.append("(no rows)", style="italic")
    return rows


def column_head(name: str, got: dict, verdicts: Sequence[Verdict], columns: Sequence[str], percent: frozenset[str],
                show_ms: Callable[[float | None], str] = format_ms, summed: frozenset[str] = frozenset()) -> Text:
    """A configuration's name and time, its figures for this request, and whether its first row is wrong."""
    head = Text(name, style="bold", end="")
    head.append(f" · {show_ms(got.get('ms'))}", style="dim")
    # a counted figure (food's dropped) is 0 or 1 for one request: shown as the count it adds, not 1.000
    got = {k: int(v) if k in summed and isinstance(v, float) and v.is_integer() else v for k, v in got.items()}
    figures = [f"{figure} {cell(figure, got, percent)}" for figure in columns
               if not figure.endswith("_ms") and figure in got]
    if figures:
        head.append("\n" + " · ".join(figures), style="dim")
    if verdicts and verdicts[0].unrated:
        head.append(f"\n{UNRATED} first row unrated", style="bold yellow")
    elif verdicts and not verdicts[0].right:
        head.append("\n" + FIRST_WRONG, style="bold red")
    elif verdicts:
        head.append(f"\n{RIGHT} first row right", style="green")
    return head


class RequestScreen(Screen):
    """One request: each configuration's top rows side by side, each row judged."""

    BINDINGS = [binding("close", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    RequestScreen #title { height: auto; padding: 0 1; background: $panel; }
    RequestScreen #columns { height: 1fr; }
    RequestScreen .column { width: 1fr; border: round $panel-lighten-2; }
    RequestScreen .column:focus-within { border: round $accent; }
    RequestScreen .head { height: auto; padding: 0 1; }
    RequestScreen .rows { height: 1fr; padding: 0 1; }
    RequestScreen .rows Static { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, suite: Suite, row: dict, split: str) -> None:
        super().__init__()
        self.suite = suite
        self.row = row
        self.split = split
        request = suite.request(row["id"])
        # At most 10 rows per configuration, judged from what the suite holds in memory: on the event loop.
        self.verdicts = {name: suite.verdicts(request, got["top"], got) for name, got in row["configs"].items()}
        self.judged = sum(1 for gain in request.judged.values() if gain > 0)

    def compose(self):
        yield Static(self.title_text(), id="title")
        yield from side_by_side(len(self.row["configs"]))
        yield Footer()

    def title_text(self) -> Text:
        where = f"{self.suite.engine} · {shown_name(self.suite.dataset)} · {self.split}"
        title = Text(f"{where} · request {self.row['id']}: ", end="")
        title.append(f"“{one_line(self.row['query'])}”", style="bold")
        if self.judged:
            title.append(f"   {self.judged} judged relevant", style="dim")
        title.append("\n" + LEGEND, style="dim")
        if any(v.unrated for verdicts in self.verdicts.values() for v in verdicts):
            title.append(f"  {UNRATED} unrated: nobody graded it for this query", style="dim")
        return title

    def on_mount(self) -> None:
        self.draw_heads()
        for i, name in enumerate(self.row["configs"]):
            self.query_one(f"#rows-{i}", Static).update(verdict_rows(self.verdicts[name]))
        if self.row["configs"]:
            self.query_one("#scroll-0").focus()

    def draw_heads(self) -> None:
        show_ms = getattr(self.app, "format_ms", format_ms)
        for i, (name, got) in enumerate(self.row["configs"].items()):
            verdicts = self.verdicts[name]
            head = column_head(name, got, verdicts, self.suite.columns, self.suite.percent, show_ms, self.suite.summed)
            self.query_one(f"#head-{i}", Static).update(head)
