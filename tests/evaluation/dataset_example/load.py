"""The example dataset's loader: its notes folder and its requests, opened as a suite."""

from __future__ import annotations

import json
from pathlib import Path

from engines import registry
from engines.eval.datasets import DataFileError
from engines.eval.runner import Request, engine_configs
from engines.eval.suite import Suite, judged_by_gain, need

HERE = Path(__file__).resolve().parent
COLUMNS = ("ndcg@10", "mrr@10", "recall@10", "p50_ms", "p90_ms")


class ExampleError(DataFileError):
    """A request line that cannot be read: names the file and line."""


def load_requests(path: Path) -> list[Request]:
    requests = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            raw = json.loads(line)
            requests.append(Request(f"q{number}", raw["query"], {i: 1.0 for i in raw["right"]}, raw["split"]))
        except (ValueError, KeyError) as exc:
            raise ExampleError(f"{path}:{number}: {exc}") from None
    return requests


def example_suite(progress, folder: Path = HERE / "notes", requests: Path = HERE / "requests.jsonl") -> Suite:
    need(folder)
    engine = registry.open_engine("notes", folder, wait_for_index=True)
    titles = {n.id: n.title for n in engine.notes}
    return Suite("notes", "example", load_requests(requests), engine_configs(engine), COLUMNS,
                 judged_by_gain(lambda i: titles.get(i, i)), salt=str(folder), close=engine.close)
