"""`olai-tui eval code --dataset natural`: the code engine's configurations over the natural questions.

Each repository is opened once as the code pane opens it (the trained table's meaning built, or read
from the cache) and each question asked of three configurations: ``lexical`` (the words alone),
``code_table`` (the trained table alone) and ``default`` (the pane's answer). A row is a symbol: a
further chunk of a long symbol (``id@line``) is that symbol, counted once at its first place.

Figures per configuration, the mean over questions: ``right@3`` (a symbol graded 3 among the first
three: the issue's "right in the top 3"), ``mrr@10`` (of the first symbol graded 3) and ``ndcg@10``
(the grades as gains), with each repository's and language's right@3.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from engines.errors import BadInput, shown
from engines.locations import shared_data

QUESTIONS = Path(__file__).resolve().parent / "questions"
RIGHT = 3
DEPTH = 10
_CHUNK = re.compile(r"(?:@\d+)+$")  # a chunk of a further chunk too: "createStore@96@196"


def load_questions(path: Path) -> list[tuple[str, dict[str, int]]]:
    """(question, {symbol id: grade}) in file order; BadInput names a bad file or line."""
    from engines.eval.judgements.exchange import read_csv

    read = read_csv(path)
    if read.problems:
        raise BadInput(read.problems[0])
    out: dict[str, dict[str, int]] = {}
    for query, item, grade in read.grades:
        out.setdefault(query, {})[item] = grade
    return list(out.items())


def symbols_of(ids: list[str]) -> list[str]:
    """Ranked row ids as symbols: a further chunk is its symbol, each symbol once at its first place."""
    return list(dict.fromkeys(_CHUNK.sub("", i) for i in ids))


def figures(ranked: list[str], graded: dict[str, int]) -> dict[str, float]:
    from engines.eval.metrics import mrr_at, ndcg_at

    right = {i for i, g in graded.items() if g >= RIGHT}
    return {"right@3": float(any(i in right for i in ranked[:3])), "mrr@10": mrr_at(ranked, right, DEPTH),
            "ndcg@10": ndcg_at(ranked, {i: float(g) for i, g in graded.items()}, DEPTH)}


def run_repo(root: Path, questions, configs, engine_factory=None) -> list[dict]:
    """Each question's ranked symbols and figures under each configuration, over the tree at ``root``."""
    from engines.answer import collect
    from engines.code.engine import CodeEngine

    engine = (engine_factory or (lambda r: CodeEngine(r, wait_for_index=True, contextual=False)))(root)
    try:
        engine.build_index()
        tiers = {"lexical": ("lexical",), "code_table": ("embedding",), "default": None}
        rows = []
        for question, graded in questions:
            row = {"query": question, "graded": graded, "configs": {}}
            for config in configs:
                hits = collect("code", question, engine.search(question, DEPTH, tiers=tiers[config])).hits
                ranked = symbols_of([h.id for h in hits])
                row["configs"][config] = {"top": ranked[:DEPTH], **figures(ranked, graded)}
            rows.append(row)
        return rows
    finally:
        engine.close()


def _mean(values) -> float | None:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else None


def evaluate_natural(configs: str | None, split: str, fresh: bool, queries: str | None, as_json: bool,
                     console, repos: str | None = None) -> int:
    from engines.eval.natural import CONFIGS
    from engines.eval.semble.load import SembleError, load_repos

    names = [c.strip() for c in configs.split(",") if c.strip()] if configs else list(CONFIGS)
    unknown = [c for c in names if c not in CONFIGS]
    if unknown or not names:
        raise BadInput(f"--configs: unknown configuration {unknown[0]!r} (known: {', '.join(CONFIGS)})" if unknown
                       else "--configs: nothing left to run")
    folder = Path(queries) if queries is not None else QUESTIONS
    if not folder.is_dir():
        raise BadInput(f"--queries: {shown(str(folder))}: no such folder")
    if split == "heldout" and queries is None:
        console.say("natural: its questions are dev only (written here); give --queries DIR to score others")
        return 0
    try:
        known = load_repos(shared_data() / "code" / "semble")
    except SembleError as exc:
        raise BadInput(str(exc)) from None
    files = sorted(folder.glob("*.csv"))
    wanted = None if repos is None else {r.strip() for r in repos.split(",") if r.strip()}
    unknown = [f.stem for f in files if f.stem not in known]
    if unknown:
        raise BadInput(f"{folder / (unknown[0] + '.csv')}: no semble repository is named {unknown[0]!r}")
    if queries is None and any(known[f.stem].split != "dev" for f in files):
        raise BadInput("natural: a question file names a held-out repository (never tuned on)")
    chosen = [f for f in files if wanted is None or f.stem in wanted]
    rows = []
    for n, path in enumerate(chosen, 1):
        repo = known[path.stem]
        questions = load_questions(path)
        console.say(f"natural {n}/{len(chosen)}: {repo.name} ({repo.language}, {len(questions)} questions)")
        for row in run_repo(repo.root, questions, names):
            rows.append(row | {"repo": repo.name, "language": repo.language})
    out = summary(rows, names)
    console.out(json.dumps(out | {"requests": rows}) if as_json else markdown(out, names))
    return 0


def summary(rows: list[dict], names) -> dict:
    metrics = {c: {m: _mean(r["configs"][c][m] for r in rows) for m in ("right@3", "mrr@10", "ndcg@10")}
               | {"questions": len(rows)} for c in names}
    by = {}
    for key in ("repo", "language"):
        groups: dict[str, list[dict]] = {}
        for r in rows:
            groups.setdefault(r[key], []).append(r)
        by[key] = {g: {c: _mean(r["configs"][c]["right@3"] for r in rs) for c in names} | {"questions": len(rs)}
                   for g, rs in sorted(groups.items())}
    return {"engine": "code", "dataset": "natural", "split": "dev", "configs": {c: {"metrics": m} for c, m in
                                                                                  metrics.items()},
            "per_repo": by["repo"], "per_language": by["language"]}


def markdown(out: dict, names) -> str:
    m = out["configs"]
    questions = m[names[0]]["metrics"]["questions"]
    lines = [f"code · natural questions · dev: {len(out['per_repo'])} repositories, {questions} questions", "",
             "| config | right@3 | mrr@10 | ndcg@10 |", "|---|---:|---:|---:|"]
    lines += [f"| {c} | {m[c]['metrics']['right@3']:.3f} | {m[c]['metrics']['mrr@10']:.3f} | "
              f"{m[c]['metrics']['ndcg@10']:.3f} |" for c in names]
    for key, label in (("per_language", "language"), ("per_repo", "repository")):
        lines += ["", f"| {label} | questions | " + " | ".join(f"{c} right@3" for c in names) + " |",
                  "|---|---:|" + "---:|" * len(names)]
        lines += [f"| {g} | {r['questions']} | " + " | ".join(f"{r[c]:.2f}" for c in names) + " |"
                  for g, r in out[key].items()]
    return "\n".join(lines)
