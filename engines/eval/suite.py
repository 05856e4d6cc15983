"""Every evaluation dataset behind one shape: its requests, configurations, scoring and judged rows.

`olai-tui eval` (olai_tui/evaluate.py) and the workbench's evaluation view (olai_tui/ui/evaluation.py)
both open a dataset here and run it through engines/eval/runner.py, so the terminal table and the
screen show the same figures from the same scoring code. ``open_suite`` raises ``DatasetError`` with
one line naming the file (and line) for a missing dataset or a malformed line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from engines.contract import Option
from engines.eval.datasets import (Dataset, DatasetError, configs_of, datasets, declare, declared,  # noqa: F401
                                   default_configs, forget, known_dataset, pick, takes_queries,
                                   without_unavailable)

if TYPE_CHECKING:  # the runner (numpy, the embedder's cache) only when a suite runs: the CLI's help reads the declarations
    from engines.eval.runner import OutcomeScorer, Ranker, Request, Scorer, Table

NOTES_COLUMNS = ("ndcg@10", "mrr@10", "recall@10", "recall@100", "p50_ms", "p90_ms")
CODE_COLUMNS = ("mrr@10", "recall@1", "recall@10", "p50_ms", "p90_ms")
ICECAT_COLUMNS = ("right_first", "in_top3", "ndcg@10", "recall", "p50_ms", "p90_ms")
FOOD_COLUMNS = ("right_first", "in_top3", "recall", "dropped", "standin_as_match", "not_sold_said", "p50_ms",
                "p90_ms")


@dataclass
class Verdict:
    """One row of one configuration's answer to one request, judged."""

    id: str
    title: str
    gain: float | None  # the judgement; None where the dataset judges by kind and rule (food)
    right: bool  # what the dataset counts as a right answer (notes, code: any gain; icecat: rated 3)
    broke_rule: bool = False  # food: the product breaks one of the request's claims or avoid-rules
    label: str | None = None  # how the configuration itself labelled the row (smart: exact, variant, ...)


@dataclass
class Suite:
    engine: str
    dataset: str
    requests: list[Request]
    factories: dict[str, Callable[[], Ranker]]
    columns: tuple[str, ...]
    verdicts: Callable[[Request, Sequence[str], dict], list[Verdict]]
    score: Scorer | None = None
    score_outcome: OutcomeScorer | None = None
    summed: frozenset[str] = frozenset()
    percent: frozenset[str] = frozenset()
    salt: str = ""
    close: Callable[[], None] = field(default=lambda: None)
    setup: object = None  # the dataset's own configurations object (Icecat: smart_milvus's facts, fallbacks)

    def run(self, names: Sequence[str] | None = None, split: str = "both", fresh: bool = False,
            progress: Callable[[int, int], None] | None = None) -> list[Table]:
        from engines.eval.runner import run

        chosen = pick(self.engine, self.dataset, names)
        return run(self.engine, self.dataset, self.requests, {n: self.factories[n] for n in chosen}, split=split,
                   fresh=fresh, salt=self.salt, progress=progress, score=self.score,
                   score_outcome=self.score_outcome, summed=self.summed)

    def request(self, request_id: str) -> Request:
        return next(r for r in self.requests if r.id == request_id)


def open_suite(engine: str, name: str, data: Path, heldout: Path, progress=None, say=None,
               queries: Path | None = None) -> Suite:
    """The dataset ``name`` of ``engine``; ``data`` is ../shared/data, ``heldout`` ../shared/heldout;
    ``queries``: a request file scored as the held-out split (the roadmap's, kept outside the repository)."""
    found = declared(engine, name)
    if found.open is None:
        raise DatasetError(f"{engine} {name}: runs on its own (olai-tui eval {engine} --dataset {name}), not as a suite")
    try:
        return found.open(data, heldout, progress, say, queries)
    except OSError as exc:
        raise DatasetError(f"{exc.filename or name}: {exc.strerror or exc}") from None
    except _loader_errors() as exc:  # each loader's own error names the file and line
        raise DatasetError(str(exc)) from None


def _loader_errors() -> tuple[type[Exception], ...]:
    from engines.eval.cosqa import CosqaError
    from engines.eval.collections import CollectionError
    from engines.eval.fineli import IdSetError
    from engines.eval.food import FoodSetError
    from engines.eval.icecat import RatingsError
    from engines.eval.roadmap_eval import RoadmapSetError
    from engines.eval.trec import TrecError

    return CosqaError, CollectionError, FoodSetError, IdSetError, RatingsError, TrecError, RoadmapSetError


def _gains(titles: Callable[[str], str], threshold: float = 0.0):
    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        return [Verdict(i, titles(i), request.judged.get(i, 0.0), request.judged.get(i, 0.0) > threshold)
                for i in ranked]

    return verdicts


def _need(path: Path) -> None:
    if not path.exists():
        raise DatasetError(f"{path}: no such file or folder")


def _notes(dataset: str, folder: Path, progress) -> Suite:
    from engines.eval.notes_eval import DATASETS, NotesConfigs, requests_of

    _need(folder)
    collection = DATASETS[dataset](folder)
    titles = {n.id: n.title for n in collection.notes}
    factories = NotesConfigs(collection, folder, progress=progress).factories()
    return Suite("notes", dataset, requests_of(collection), factories, NOTES_COLUMNS,
                 _gains(lambda i: titles.get(i, i)), salt=str(folder.resolve()))  # another copy: measured apart


def _roadmap(corpus: Path, queries: Path | None, progress) -> Suite:
    from engines.eval.roadmap_eval import COLUMNS, DEV, SUMMED, RoadmapConfigs, load_requests, score

    _need(corpus)
    prefix = corpus.name + "#"
    requests = load_requests(DEV, "dev", prefix)
    if queries is not None:
        _need(queries)
        requests += load_requests(queries, "heldout", prefix)
    setup = RoadmapConfigs(corpus, progress=progress)
    titles = {}

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        if not titles:
            titles.update({n.id: n.title for n in setup.engine().notes})
        strengths = extras.get("strength") or []
        return [Verdict(i, titles.get(i, i), request.judged.get(i, 0.0), i in request.judged,
                        label=strengths[n] if n < len(strengths) else None) for n, i in enumerate(ranked)]

    return Suite("notes", "roadmap", requests, setup.factories(), COLUMNS, verdicts, score_outcome=score,
                 summed=SUMMED, salt=f"{corpus.resolve()}|{DEV.read_text(encoding='utf-8')}", close=setup.close,
                 setup=setup)


def _code(data: Path, heldout: Path, progress) -> Suite:
    from engines.eval.code_eval import CodeConfigs, cosqa_requests

    _need(data)
    setup = CodeConfigs(data, progress=progress)
    requests = cosqa_requests(data, heldout)

    def title(symbol_id: str) -> str:
        engine = setup.engine()
        symbol = next((s for s in engine.symbols if s.id == symbol_id), None)
        return f"{symbol.qualname}{symbol.signature}" if symbol is not None and symbol.qualname else symbol_id

    return Suite("code", "cosqa", requests, setup.factories(), CODE_COLUMNS, _gains(title), salt=str(data.resolve()))


def _icecat(corpus: Path, heldout: Path, progress, say) -> Suite:
    from engines.eval.icecat import DEPTH, HELDOUT, IcecatConfigs, icecat_metrics, icecat_requests

    _need(corpus)
    requests = icecat_requests(corpus, heldout / HELDOUT)
    setup = IcecatConfigs(corpus, progress=progress, say=say)

    def title(product_id: str) -> str:
        engine = setup.engine()
        at = engine.catalogue.by_id.get(product_id)
        return engine.products[at].name if at is not None else product_id

    return Suite("products", "icecat", requests, setup.factories(), ICECAT_COLUMNS, _gains(title, 2.5),
                 score=icecat_metrics, salt=f"{corpus.resolve()}|{DEPTH}", close=setup.close, setup=setup)


def _food(progress) -> Suite:
    from engines.eval.food.run import FoodConfigs, is_right, keeps_rules, requests

    asked = requests("both")
    setup = FoodConfigs(progress=progress)

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        engine = setup.engine()
        food = request.spec
        labels = extras.get("labels") or []
        out = []
        for n, product_id in enumerate(ranked):
            p = engine.products[engine.catalogue.by_id[product_id]]
            broke = bool(food.claims or food.avoid) and not keeps_rules(p, food)
            out.append(Verdict(p.id, p.name, None, is_right(p, food), broke, labels[n] if n < len(labels) else None))
        return out

    return Suite("products", "food", asked, setup.factories(), FOOD_COLUMNS, verdicts,
                 score_outcome=setup.score, summed=frozenset({"dropped", "standin_as_match", "not_sold_said",
                                                             "not_sold_due"}),
                 percent=frozenset({"right_first", "in_top3", "recall"}), salt=setup.salt(), close=setup.close,
                 setup=setup)


def _by_ids(dataset: str, data: Path, heldout: Path, progress, queries: Path | None = None) -> Suite:
    """``fineli`` (the wholesale file) or ``food_fisv`` (the demo catalogue): requests judged by product id."""
    from engines.eval.fineli import DEV, HELDOUT
    from engines.eval.fineli.run import COLUMNS, IdConfigs, id_requests, keeps_rules, is_right
    from engines.locations import fixtures_dir

    corpus = data / "fineli-wholesale" / "tuotteet.csv" if dataset == "fineli" else fixtures_dir() / "products"
    _need(corpus)
    if queries is not None:
        _need(queries)
    asked = id_requests(dataset, DEV[dataset], queries if queries is not None else heldout / HELDOUT[dataset])
    setup = IdConfigs(corpus, progress=progress)

    def verdicts(request: Request, ranked: Sequence[str], extras: dict) -> list[Verdict]:
        engine = setup.engine()
        labels = extras.get("labels") or []
        out = []
        for n, product_id in enumerate(ranked):
            p = engine.products[engine.catalogue.by_id[product_id]]
            broke = bool(request.spec.claims or request.spec.avoid) and not keeps_rules(p, request.spec)
            out.append(Verdict(p.id, p.name, None, is_right(p, request.spec), broke,
                               labels[n] if n < len(labels) else None))
        return out

    return Suite("products", dataset, asked, setup.factories(), COLUMNS, verdicts, score_outcome=setup.score,
                 summed=frozenset({"dropped"}), percent=frozenset(c for c in COLUMNS if "right" in c or "top3" in c),
                 salt=f"{corpus.resolve()}|{setup.salt()}", close=setup.close, setup=setup)


# -- the built-in engines' datasets, in the order the evaluation view lists them --------------------
def _notes_configs() -> tuple[str, ...]:
    from engines.eval.notes_eval import CONFIGS

    return CONFIGS


def _roadmap_configs() -> tuple[str, ...]:
    from engines.eval.roadmap_eval import CONFIGS

    return CONFIGS


def _code_configs() -> tuple[str, ...]:
    from engines.eval.code_eval import CONFIGS

    return CONFIGS


def _semble_configs() -> tuple[str, ...]:
    from engines.eval.semble_run import CONFIGS

    return CONFIGS


def _food_configs() -> tuple[str, ...]:
    from engines.eval.food.run import CONFIGS, HTTP

    return tuple(CONFIGS) + (HTTP,)


def _id_configs() -> tuple[str, ...]:  # fineli and food_fisv: food's configurations, judged by product id
    from engines.eval.food.run import CONFIGS

    return CONFIGS


def _icecat_configs() -> tuple[str, ...]:
    from engines.eval.icecat import CONFIGS

    return CONFIGS


def _food_defaults() -> list[str]:
    from engines.eval.food.run import CONFIGS, HTTP, http_judge_configured

    return list(CONFIGS) + ([HTTP] if http_judge_configured() else [])


def _icecat_unavailable() -> dict[str, str]:
    from engines.eval.icecat import milvus_available

    why = milvus_available()
    return {"smart_milvus": why} if why else {}


def _icecat_extras(suite: Suite, tables: list[Table], say: Callable[[str], None]) -> dict:
    from engines.eval.icecat import icecat_extras

    return icecat_extras(suite, tables, say)


def _semble_run(**asked) -> int:
    from engines.eval.semble_report import evaluate_semble

    return evaluate_semble(**asked)


def _semble_defaults() -> list[str]:
    from engines.eval.semble_run import DEFAULT_CONFIGS

    return list(DEFAULT_CONFIGS)


A_REQUEST_FILE = "a request file scored as the held-out split"
for _name in ("vaswani", "cranfield"):
    declare(Dataset("notes", _name, _notes_configs,
                    lambda data, heldout, progress, say, queries, name=_name: _notes(name, data / "notes" / name,
                                                                                     progress)))
declare(Dataset("notes", "roadmap", _roadmap_configs,
                lambda data, heldout, progress, say, queries: _roadmap(data / "notes" / "olai-roadmap.jsonl", queries,
                                                                       progress),
                queries=A_REQUEST_FILE,
                heldout_hint="the roadmap's held-out set is kept outside this repository: pass it with --queries FILE"
                             " (one {\"query\", \"accept\"} or {\"query\", \"off_topic\"} object a line); its table"
                             " is empty"))
declare(Dataset("code", "cosqa", _code_configs,
                lambda data, heldout, progress, say, queries: _code(data / "code" / "cosqa", heldout / "code", progress)))
declare(Dataset("code", "semble", _semble_configs, default_configs=_semble_defaults,
                queries="a folder of <repo>.json annotation files", run=_semble_run,
                arguments=(Option("repos", "only these repositories, comma-separated"),)))
declare(Dataset("products", "food", _food_configs,
                lambda data, heldout, progress, say, queries: _food(progress), default_configs=_food_defaults))
declare(Dataset("products", "icecat", _icecat_configs,
                lambda data, heldout, progress, say, queries: _icecat(data / "products" / "icecat",
                                                                      heldout / "products", progress, say),
                unavailable=_icecat_unavailable, extras=_icecat_extras))
for _name in ("fineli", "food_fisv"):
    declare(Dataset("products", _name, _id_configs,
                    lambda data, heldout, progress, say, queries, name=_name: _by_ids(name, data / "products",
                                                                                      heldout / "products", progress,
                                                                                      queries),
                    queries=A_REQUEST_FILE))
