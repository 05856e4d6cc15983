"""The code table's training tool (training/code_table): what it refuses, what it mines, and that its
gradients are the gradients of the loss it reports (a wrong sign or a lost term trains nothing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from training.code_table import mine, train

REPO = Path(__file__).resolve().parents[2]


def _corpus(tmp_path: Path, name: str, url: str) -> tuple[Path, Path]:
    corpus, semble = tmp_path / "train", tmp_path / "semble"
    (corpus / "repos" / name).mkdir(parents=True)
    (corpus / "repos" / name / "m.py").write_text('def f(x):\n    """Add one to x and give it back to the caller."""\n'
                                                  "    total = x + 1\n    return total\n", encoding="utf-8")
    (corpus / "manifest.json").write_text(json.dumps([{"name": name, "language": "python", "url": url,
                                                       "commit": "0" * 40, "license_spdx": "MIT"}]), encoding="utf-8")
    semble.mkdir()
    (semble / "repos.json").write_text(json.dumps([{"name": "aiohttp", "url": "https://github.com/aio-libs/aiohttp.git"}]),
                                       encoding="utf-8")
    return corpus, semble


@pytest.mark.parametrize("name,url", [("aiohttp", "https://example.org/x/other"),  # by name
                                      ("renamed", "https://github.com/aio-libs/aiohttp")])  # by URL
def test_a_corpus_holding_a_benchmark_repository_is_refused(tmp_path, name, url):
    corpus, semble = _corpus(tmp_path, name, url)
    with pytest.raises(mine.CorpusRefused, match="benchmark"):
        mine.read_manifest(corpus, semble)


def test_the_command_refuses_it_in_one_line_with_exit_2(tmp_path):
    corpus, semble = _corpus(tmp_path, "aiohttp", "")
    done = subprocess.run([sys.executable, "-m", "training.code_table", "--out", str(tmp_path / "t.npy"),
                           "--corpus", str(corpus), "--semble", str(semble)], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "aiohttp" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "t.npy").exists()


def test_pairs_are_mined_with_the_engines_parser_and_the_code_side_loses_its_doc(tmp_path):
    corpus, _ = _corpus(tmp_path, "mine", "")
    pairs = mine.repo_pairs(corpus / "repos" / "mine", "mine", "python", 0)
    doc = next(p for p in pairs if p.kind == "doc")
    assert doc.query == "Add one to x and give it back to the caller."
    assert "total = x + 1" in doc.code and "give it back" not in doc.code
    summary = next(p for p in pairs if p.kind == "summary")
    assert "give it back" in summary.code  # the chunk as the pane indexes it


def test_a_question_pair_asks_about_the_symbol_and_answers_with_the_whole_chunk(tmp_path):
    from training.code_table.questions import question

    corpus, _ = _corpus(tmp_path, "mine", "")
    asked = next(p for p in mine.repo_pairs(corpus / "repos" / "mine", "mine", "python", 0) if p.kind == "question")
    assert "give it back" in asked.code and asked.query != "Add one to x and give it back to the caller."
    shapes = {question(seed, f"k{seed}", "Parses the command line flags.", "parse flags", "parseFlags", "function",
                       "cli") for seed in range(40)}
    assert {"how to parse the command line flags", "where is parse flags implemented", "parseFlags"} <= shapes
    assert "which module computes all shortest paths" in {
        question(s, f"k{s}", "Compute all shortest paths", "paths", "paths", "function", "graph") for s in range(40)}
    assert all("@" not in question(s, "k", "@return void", "x y", "xY", "method", "m") for s in range(10))


def test_the_defaults_train_every_kind_and_average_two_tables():
    from training.code_table.__main__ import parse

    args = parse(["--out", "t.npy"])
    assert args.kinds.split(",") == ["doc", "summary", "name", "question"] and set(args.kinds.split(",")) <= set(mine.KINDS)
    assert args.targets.split(",") == ["token-mean", "rotated"]


def test_held_out_repositories_are_whole_and_seeded():
    repos = [{"name": f"r{i}{lang}", "language": lang} for lang in "abcdefgh" for i in range(3)]
    first = mine.held_out(repos, 0)
    assert first == mine.held_out(repos, 0) and len(first) == mine.HELD_OUT_LANGUAGES
    assert len({r["language"] for r in repos if r["name"] in first}) == mine.HELD_OUT_LANGUAGES


def _numeric(loss, table, rows, eps=1e-6):
    out = np.zeros_like(table)
    for i in rows:
        for j in range(table.shape[1]):
            up, down = table.copy(), table.copy()
            up[i, j] += eps
            down[i, j] -= eps
            out[i, j] = (loss(up) - loss(down)) / (2 * eps)
    return out


@pytest.mark.parametrize("symmetric", [False, True])
def test_the_contrastive_gradient_is_the_losss(symmetric):
    rng = np.random.default_rng(1)
    table = rng.normal(size=(40, 6))
    ids = [rng.integers(0, 40, rng.integers(1, 7)) for _ in range(8)]

    def loss(t):
        enc = train.encode(t, ids)
        return train.mnrl(enc.vectors[:4], enc.vectors[4:], symmetric)[0]

    enc = train.encode(table, ids)
    _, g_q, g_c = train.mnrl(enc.vectors[:4], enc.vectors[4:], symmetric)
    analytic = np.zeros_like(table)
    analytic[enc.unique] = train.backward(enc, np.vstack([g_q, g_c]))
    assert np.abs(analytic - _numeric(loss, table, enc.unique)).max() < 1e-6


def test_the_regression_gradient_is_the_losss():
    rng = np.random.default_rng(2)
    table = rng.normal(size=(30, 5))
    ids = [rng.integers(0, 30, rng.integers(1, 6)) for _ in range(6)]
    targets = rng.normal(size=(6, 5))
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)

    def loss(t):
        return float(np.mean(1 - np.sum(train.encode(t, ids).vectors * targets, axis=1)))

    enc = train.encode(table, ids)
    analytic = np.zeros_like(table)
    analytic[enc.unique] = train.backward(enc, -targets / len(ids))
    assert np.abs(analytic - _numeric(loss, table, enc.unique)).max() < 1e-6


def test_a_text_is_embedded_in_training_as_at_run_time():
    """The training's forward pass is the run-time static embedder's: same vectors for the same ids."""
    from engines.embed.static import StaticEmbedder

    rng = np.random.default_rng(3)
    table = rng.normal(size=(200, 8)).astype(np.float32)
    ids = [rng.integers(0, 200, n) for n in (1, 5, 40)]
    embedder = StaticEmbedder(table_path=REPO / "missing.npy")
    embedder.token_ids = lambda texts: [list(map(int, i)) for i in ids]  # the ids, as if tokenized
    assert np.allclose(embedder._embedded(["a", "b", "c"], table), train.encode(table, ids).vectors, atol=1e-6)


def test_a_code_vocabulary_word_is_one_row_where_wordpiece_cut_it_into_pieces(tmp_path):
    """The code vocabulary (training/code_table/vocabulary.py) changes only which rows a word reads:
    its pieces back in its place give WordPiece's ids exactly; the run time reads the words from the
    manifest; the extended table embeds a text as the table it was made from."""
    from engines.embed.code_table import BASE_ROWS, CodeTableEmbedder
    from training.code_table import vocabulary

    words = ["getcwd", "isfile", "strftime"]
    plain = CodeTableEmbedder(tmp_path / "none.npy", split=False, words=[])
    coded = CodeTableEmbedder(tmp_path / "none.npy", split=False, words=words)
    texts = ["cwd = os.getcwd() if os.path.isfile(p) else None",
             "def f():\n    return time.strftime('%Y')  # getcwd_x isfile2 ÉgetcwdSTRFTIME café getcwd",
             "GETCWD", "", "no word of it here"]
    for text, base, ids in zip(texts, plain.token_ids(texts), coded.token_ids(texts)):
        back = [j for i in ids for j in (plain.token_ids([words[i - BASE_ROWS]])[0] if i >= BASE_ROWS else [i])]
        assert back == base, text
    assert coded.token_ids(["os.getcwd()"])[0].count(BASE_ROWS) == 1
    assert coded.token_ids(["GETCWD getcwd_x"])[0].count(BASE_ROWS) == 2

    rng = np.random.default_rng(4)
    table = rng.normal(size=(BASE_ROWS, 4)).astype(np.float32)
    bigger = vocabulary.extended(table, plain, words)
    assert bigger.shape == (BASE_ROWS + 3, 4)
    assert np.allclose(coded._embedded(texts, bigger), plain._embedded(texts, table), atol=1e-5)

    path = tmp_path / "t.npy"
    np.save(path, bigger.astype(np.float16))
    path.with_suffix(".json").write_text(json.dumps({"code_vocabulary": {"first_id": BASE_ROWS, "words": words}}))
    assert CodeTableEmbedder(path).token_ids(texts) == coded.token_ids(texts)


def test_punctuation_left_out_where_the_manifest_says_so(tmp_path):
    from engines.embed.code_table import CodeTableEmbedder

    plain = CodeTableEmbedder(tmp_path / "none.npy", split=False, words=[], punctuation=True)
    bare = CodeTableEmbedder(tmp_path / "none.npy", split=False, words=["getcwd"], punctuation=False)
    text = "if os.path.isfile(p): return os.getcwd() + '/x' # done"
    marks = bare._punctuation_ids()
    assert {"(", ")", ".", ":", "+", "#"} <= {plain._vocabulary().detokenize([i]).decode().strip() for i in marks}
    assert all(i not in marks for i in bare.token_ids([text])[0])
    kept = [i for i in plain.token_ids([text])[0] if i not in marks]
    assert len(bare.token_ids([text])[0]) == len(kept) - 2  # getcwd: one row for its three pieces
    path = tmp_path / "t.npy"
    path.with_suffix(".json").write_text(json.dumps({"punctuation": False,
                                                     "code_vocabulary": {"first_id": 30522, "words": ["getcwd"]}}))
    assert CodeTableEmbedder(path).token_ids([text]) == bare.token_ids([text])


def test_a_share_of_the_queries_is_led_by_the_language_as_a_person_names_it():
    from training.code_table import start

    pairs = [mine.Pair("r", lang, "doc", f"query {i}", "code") for i, lang in enumerate(["python", "cpp"] * 200)]
    led = start.language_queries(pairs, 0.5, 0)
    assert led == start.language_queries(pairs, 0.5, 0) and start.language_queries(pairs, 0, 0) == pairs
    changed = [p for p, q in zip(pairs, led) if p != q]
    assert 150 < len(changed) < 250
    assert {q.query.split()[0] for p, q in zip(pairs, led) if p != q} == {"python", "c++"}


def test_every_chunk_of_the_training_repositories_is_a_teacher_text_capped_and_a_prefix(tmp_path, monkeypatch):
    from training.code_table import chunks, start

    corpus = tmp_path / "train"
    for name, count in (("big", 6), ("small", 2), ("held", 3)):
        (corpus / "repos" / name).mkdir(parents=True)
        body = "".join(f"def {name}_{i}(value):\n    return value * {i} + {i} - len(str(value))\n\n" for i in range(count))
        (corpus / "repos" / name / "m.py").write_text(body, encoding="utf-8")
    repos = [{"name": n, "language": "python"} for n in ("big", "small", "held")]
    monkeypatch.setattr(chunks, "PER_REPO", 4)
    found = chunks.mine_chunks(corpus, repos, {"held"}, 0, 800, lambda _: None)
    assert found == chunks.mine_chunks(corpus, repos, {"held"}, 0, 800, lambda _: None)  # seeded
    assert not any("def held_" in t for t in found)  # the validation repositories are never read
    assert sum("def big_" in t for t in found) == 4 and sum("def small_" in t for t in found) == 2  # capped
    pair = mine.Pair("big", "python", "summary", "a doc line long enough", found[0])
    texts = [start.teacher_texts([pair], 10, 10, 0, chunks=found, chunks_cap=cap) for cap in (2, 5)]
    assert texts[0] == texts[1][:len(texts[0])]  # a larger cap keeps the smaller's texts: its cache is used whole
    assert texts[1].count(found[0]) == 1 and len(texts[1]) == 2 + 5  # a chunk already taken is not taken twice


def test_rotated_targets_keep_the_teachers_cosines_where_the_token_mean_bends_them_together():
    from training.code_table.start import projected

    rng = np.random.default_rng(0)
    dims = 12
    vectors = rng.normal(size=(200, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    components = np.linalg.qr(rng.normal(size=(dims, dims)))[0]  # a full basis: nothing lost by turning
    token_mean = np.full(dims, 1.5)  # the token vectors' mean: far from the sentence vectors' own

    def mean_cosine(x):
        c = x @ x.T
        return (c.sum() - len(x)) / (len(x) ** 2 - len(x))

    rotated = projected(vectors, (np.zeros(dims), components), "rotated")
    assert np.allclose(rotated @ rotated.T, vectors @ vectors.T, atol=1e-5)
    assert np.allclose(projected(vectors, (token_mean, components), "rotated"), rotated, atol=1e-6)
    assert mean_cosine(projected(vectors, (token_mean, components), "token-mean")) > 0.5 > abs(mean_cosine(rotated))
    centred = projected(vectors, (token_mean, components), "centred")
    assert abs(mean_cosine(centred)) < 0.05


def test_the_regression_is_cached_by_what_it_reads(tmp_path, monkeypatch):
    from training.code_table import start

    monkeypatch.setattr(start, "_cache_dir", lambda: tmp_path)
    rng = np.random.default_rng(1)
    table = rng.normal(size=(30, 8)).astype(np.float32)
    ids = [rng.integers(0, 30, 5) for _ in range(40)]
    targets = rng.normal(size=(40, 8)).astype(np.float32)
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)
    said = []
    first = start.regressed(table, ids, targets, 2, 16, 1e-2, 0, said.append)
    assert not np.array_equal(first, table), "the regression moved no row"
    again = start.regressed(table, ids, targets, 2, 16, 1e-2, 0, said.append)
    assert np.array_equal(first, again) and "from" in said[-1]
    other = start.regressed(table, ids, -targets, 2, 16, 1e-2, 0, said.append)
    assert not np.array_equal(first, other) and len(list(tmp_path.glob("regressed-*.npy"))) == 2


@pytest.mark.parametrize("flags,named", [(["--targets", "sideways"], "sideways"), (["--targets", ","], "--targets"),
                                         (["--targets", "token-mean,rotated", "--joint", "5,1,2"], "--joint"),
                                         (["--joint", "strong"], "strong")])
def test_a_bad_member_of_the_soup_is_one_line_and_exit_2_before_any_work(tmp_path, flags, named):
    done = subprocess.run([sys.executable, "-m", "training.code_table", "--out", str(tmp_path / "t.npy"),
                           "--corpus", str(tmp_path / "none"), *flags], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr
