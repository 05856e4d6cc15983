"""`olai-tui eval code --dataset semble`: semble's scoring rules on hand-made rankings, and the command
on a two-repository benchmark built in a temporary folder (the staged one need not exist).

The rules are the data README's: top-10 chunks not deduplicated, relevant and secondary both gain 1,
a suffix path match either way, line-range targets need overlapping lines, a position counts once,
IDCG counts every annotated target, the headline is the mean over repositories.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.eval.semble.load import Chunk, Target, file_ndcg, infer_category, load_queries, ndcg, path_matches

REPO = Path(__file__).resolve().parents[2]


def idcg(n: int) -> float:
    return sum(1 / math.log2(i + 2) for i in range(min(10, n)))


# -- the scoring rules ---------------------------------------------------------------------------

def test_a_suffix_match_works_both_ways_on_slash_boundaries():
    assert path_matches("ctx.py", "src/flask/ctx.py")  # semble's chunk paths are relative to the root
    assert path_matches("src/flask/ctx.py", "flask/ctx.py")
    assert path_matches("a\\b\\c.py", "b/c.py")  # backslashes read as slashes
    assert not path_matches("xctx.py", "src/flask/ctx.py")
    assert not path_matches("flask/ctx.py", "src/flask/ctx.pyi")


def test_a_line_range_target_needs_overlapping_lines():
    target = Target("pkg/limits.py", 20, 30)
    assert ndcg([Chunk("pkg/limits.py", 25, 40)], [target]) == pytest.approx(1.0)
    assert ndcg([Chunk("pkg/limits.py", 30, 31)], [target]) == pytest.approx(1.0)  # inclusive
    assert ndcg([Chunk("pkg/limits.py", 1, 19), Chunk("pkg/limits.py", 31, 60)], [target]) == 0.0
    # one bound only: a whole-file target
    assert ndcg([Chunk("pkg/limits.py", 1, 5)], [Target("pkg/limits.py", 20, None)]) == pytest.approx(1.0)


def test_a_secondary_target_gains_as_much_as_a_relevant_one():
    targets = [Target("app.py"), Target("sansio/app.py")]  # relevant, secondary
    ranked = [Chunk("x.py", 1, 2), Chunk("sansio/app.py", 1, 9)]
    # "app.py" matches "sansio/app.py" by suffix too: both targets rank 2, one position counts once
    assert ndcg(ranked, targets) == pytest.approx((1 / math.log2(3)) / idcg(2))
    ranked = [Chunk("src/app.py", 1, 2), Chunk("sansio/app.py", 1, 9)]
    assert ndcg(ranked, targets) == pytest.approx(1.0)


def test_a_file_repeated_in_the_top_ten_takes_positions_and_the_file_view_removes_them():
    targets = [Target("a.py"), Target("b.py")]
    ranked = [Chunk("a.py", 1, 5), Chunk("a.py", 6, 10), Chunk("b.py", 1, 3)]
    assert ndcg(ranked, targets) == pytest.approx((1 + 1 / math.log2(4)) / idcg(2))
    assert file_ndcg(ranked, targets) == pytest.approx(1.0)


def test_a_target_that_cannot_be_found_still_counts_in_the_ideal():
    ranked = [Chunk("a.py", 1, 5)]
    assert ndcg(ranked, [Target("a.py"), Target("../outside/root.py")]) == pytest.approx(1 / idcg(2))


def test_only_the_first_ten_positions_count():
    ranked = [Chunk(f"f{i}.py", 1, 2) for i in range(10)] + [Chunk("a.py", 1, 2)]
    assert ndcg(ranked, [Target("a.py")]) == 0.0


def test_a_query_without_a_category_is_inferred_as_semble_does(tmp_path):
    assert infer_category("HTTPAdapter") == "symbol"
    assert infer_category("how are routes registered") == "architecture"
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"query": "rate limiting", "relevant": [{"path": "a.py", "start_line": 3,
                                                                         "end_line": 9}], "secondary": ["b.py"]}]))
    (q,) = load_queries(path, "r")
    assert q.category == "semantic" and q.targets == (Target("a.py", 3, 9), Target("b.py"))


# -- the command on a two-repository benchmark -----------------------------------------------------

LIMITS = '''"""Rate limiting for the shop."""


class RateLimiter:
    """Token bucket: allow a request when a token is left."""

    def allow(self, key):
        return True
'''
SESSIONS = '''def open_session(user):
    """Start a user session and remember it."""
    return {"user": user}
'''
USES = '''from .limits import RateLimiter


def throttle(request):
    limiter = RateLimiter()
    return limiter.allow(request.key)
'''


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    """shared/data/code/semble in miniature: 'shop' (dev), 'cart' (heldout, its queries kept apart)."""
    data = tmp_path_factory.mktemp("shared") / "data"
    root = data / "code" / "semble"
    for name in ("shop", "cart"):
        src = root / "repos" / name / "src" / name
        src.mkdir(parents=True)
        (src / "limits.py").write_text(LIMITS)
        (src / "sessions.py").write_text(SESSIONS)
        (src / "uses.py").write_text(USES)
    (root / "repos.json").write_text(json.dumps([
        {"name": "shop", "language": "python", "url": "", "revision": "", "benchmark_root": "src/shop"},
        {"name": "cart", "language": "python", "url": "", "revision": "", "benchmark_root": "src/cart"}]))
    (root / "splits.json").write_text(json.dumps({"dev": ["shop"], "heldout": ["cart"]}))
    (root / "annotations").mkdir()
    queries = [{"query": "RateLimiter", "relevant": [{"path": "src/shop/limits.py", "start_line": 4, "end_line": 8}],
                "secondary": [], "category": "symbol"},
               {"query": "user session handling", "relevant": ["src/shop/sessions.py"], "secondary": [],
                "category": "semantic"}]
    (root / "annotations" / "shop.json").write_text(json.dumps(queries))
    (root / "peer-results.json").write_text(json.dumps({"shop": {"bm25_raw": 0.5}}))
    return data


def cli(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OLAI_SHARED_DATA=str(data))
    return subprocess.run([sys.executable, "-m", "olai_tui.cli", "eval", "code", "--dataset", "semble", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_eval_json_adds_per_repo_language_and_category_to_the_eval_shape(bench):
    done = cli(bench, "--split", "dev", "--configs", "bm25_raw,lexical", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["engine"] == "code" and out["dataset"] == "semble" and out["split"] == "dev"
    lexical = out["configs"]["lexical"]["metrics"]
    assert lexical["ndcg@10"] == pytest.approx(1.0) and lexical["ndcg@10_symbol"] == pytest.approx(1.0)
    assert set(out["per_repo"]) == {"shop"} and out["per_repo"]["shop"]["index_ms"] > 0
    assert out["per_repo"]["shop"]["configs"]["lexical"]["p50_ms"] >= 0
    assert out["per_language"]["python"]["lexical"] == pytest.approx(1.0)
    assert set(out["per_category"]) >= {"symbol", "semantic"}
    first = next(r for r in out["requests"] if r["query"] == "RateLimiter")
    assert first["configs"]["lexical"]["top"][0] == "limits.py:4-8"  # the class, paths relative to the root


def test_heldout_without_queries_says_so_and_names_the_flag(bench):
    done = cli(bench, "--split", "heldout", "--configs", "lexical")
    assert done.returncode == 0, done.stderr
    assert "--queries" in done.stderr and "no repositories with queries" in done.stdout


def test_queries_dir_scores_the_heldout_repositories_from_its_files(bench, tmp_path):
    (tmp_path / "cart.json").write_text(json.dumps([{"query": "open_session", "relevant": ["src/cart/sessions.py"],
                                                     "secondary": [], "category": "symbol"}]))
    done = cli(bench, "--split", "both", "--queries", str(tmp_path), "--configs", "lexical", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out["per_repo"]) == {"shop", "cart"} and out["per_repo"]["cart"]["split"] == "heldout"
    assert out["configs"]["lexical"]["metrics"]["heldout"]["ndcg@10"] == pytest.approx(1.0)


def test_repos_keeps_only_the_named_repositories(bench, tmp_path):
    (tmp_path / "cart.json").write_text(json.dumps([{"query": "RateLimiter", "relevant": ["src/cart/limits.py"]}]))
    done = cli(bench, "--split", "both", "--queries", str(tmp_path), "--repos", "cart", "--configs", "lexical",
               "--json")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["per_repo"]) == {"cart"}


@pytest.mark.parametrize("args, named", [
    (("--queries", "/no/such/folder"), "/no/such/folder"),
    (("--repos", "shop,nope"), "'nope'"),
    (("--configs", "lexical,magic"), "'magic'"),
])
def test_bad_arguments_exit_2_with_one_line_naming_them(bench, args, named):
    done = cli(bench, "--split", "dev", *args)
    assert done.returncode == 2 and named in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_malformed_annotation_file_exits_2_naming_the_file(bench, tmp_path):
    (tmp_path / "cart.json").write_text('[{"query": "x", "relevant": [')
    done = cli(bench, "--split", "heldout", "--queries", str(tmp_path))
    assert done.returncode == 2 and str(tmp_path / "cart.json") in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_static_table_bench_times_each_repository_from_a_cold_cache(bench):
    env = dict(os.environ, OLAI_SHARED_DATA=str(bench))
    done = subprocess.run([sys.executable, "-m", "engines.eval.bench.code.static_per_repo", "--json"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    (row,) = out["rows"]  # the dev split only: 'shop'
    assert row["repo"] == "shop" and row["symbols"] > 3 and row["vectors_s"] > 0 and row["query_ms"] > 0
    assert out["median"]["symbols"] == row["symbols"]
    wrong = subprocess.run([sys.executable, "-m", "engines.eval.bench.code.static_per_repo", "--repos", "nope"],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "nope" in wrong.stderr
