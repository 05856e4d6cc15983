"""Tokenising and BM25, shared by the code and products engines."""

from __future__ import annotations

import numpy as np
import pytest

from engines.lexical import SNOWBALL, BM25Index, fold, snowball_word, split_identifier, stem_word, tokenize


@pytest.mark.parametrize("name, words", [
    ("rate_limit", ["rate", "limit"]),
    ("RateLimiter", ["rate", "limiter"]),
    ("HTTP2Stream", ["http", "2", "stream"]),
    ("getHTTPResponseCode", ["get", "http", "response", "code"]),
    ("__init__", ["init"]),
    ("parse_URL2", ["parse", "url", "2"]),
    ("Crème_BRÛLÉE", ["creme", "brulee"]),
    ("straße", ["strasse"]),
    ("", []),
    ("--- ...", []),
])
def test_identifiers_split_into_the_words_a_reader_would_say(name, words):
    assert split_identifier(name) == words


def test_fold_casefolds_and_strips_accents():
    assert fold("Crème BRÛLÉE") == "creme brulee"
    assert fold("Ångström") == "angstrom"


def test_tokenize_splits_identifiers_inside_prose_and_code():
    assert tokenize("def retry_after(self): return self.maxRetries") == [
        "def", "retry", "after", "self", "return", "self", "max", "retries"]


def test_light_stemming_meets_the_word_forms_a_query_uses():
    assert tokenize("limiting limits limited", stem=True) == ["limit", "limit", "limit"]
    assert tokenize("retries retried retry", stem=True) == ["retry", "retry", "retry"]
    assert stem_word("caches") == stem_word("cache") == "cache"
    assert stem_word("class") == "class" and stem_word("args") == "args"  # short and -ss words stay whole


def test_the_code_engines_snowball_stems_meet_what_the_light_stemmer_leaves_apart():
    assert tokenize("confirmation confirms confirm", SNOWBALL) == ["confirm", "confirm", "confirm"]
    assert tokenize("validation validateInput", SNOWBALL) == ["valid", "valid", "input"]
    assert snowball_word("args") == "args" and snowball_word("utf8") == "utf8"  # short words and digits whole
    # notes and products keep the light stemmer their figures were measured with
    assert stem_word("confirmation") == "confirmation" and tokenize("validation", stem=True) == ["validation"]


def test_bm25_ranks_the_document_holding_the_rare_word_first():
    docs = [tokenize(t) for t in ("open a file", "read the file and close the file", "rate limiter for requests",
                                  "file file file")]
    index = BM25Index(docs)
    top = index.top(tokenize("limiter file"), 10)
    assert top[0][0] == 2  # "limiter" occurs once in the corpus: its idf outweighs "file"
    assert {i for i, _ in top} == {0, 1, 2, 3}
    assert all(a[1] >= b[1] for a, b in zip(top, top[1:]))


def test_bm25_scores_are_one_per_document_and_zero_without_a_shared_word():
    index = BM25Index([["a", "b"], ["c"], []])
    scores = index.scores(["c", "unknown"])
    assert isinstance(scores, np.ndarray) and scores.shape == (3,)
    assert scores[0] == 0 and scores[1] > 0 and scores[2] == 0
    assert index.top(["unknown"], 5) == [] and index.top([], 5) == []


def test_bm25_top_keeps_only_positive_scores_and_respects_k_with_ties_in_corpus_order():
    index = BM25Index([["x"], ["y"], ["x"], ["x"]])
    assert [i for i, _ in index.top(["x"], 2)] == [0, 2]
    assert index.top(["x"], 0) == []


def test_an_empty_corpus_answers_nothing():
    assert BM25Index([]).top(["a"], 3) == [] and BM25Index([[], []]).scores(["a"]).tolist() == [0, 0]


def test_standard_tokenize_reads_as_a_plain_bm25_setup():
    from engines.lexical import standard_tokenize

    # lower-cased, one-letter words and stopwords out, Snowball stems (not our light stemmer: "caches" -> "cach")
    assert standard_tokenize("The Running of the caches, a HTTPServer x 12") == ["run", "cach", "httpserver", "12"]


def test_the_index_built_from_counts_scores_as_bm25s_own_index_does():
    """The matrix is built here with bm25s's Lucene formulas and handed to bm25s to score: if bm25s
    changes how it stores or scores an index, this says so."""
    import bm25s

    texts = ["open a file and read the file", "rate limiter for requests", "retry the request after a delay",
             "file file file", "", "close the file handle", "limiter limiter rate"]
    docs = [tokenize(t) for t in texts]
    ours = BM25Index(docs, k1=1.2, b=0.6)
    theirs = bm25s.BM25(k1=1.2, b=0.6, method="lucene")
    theirs.index(docs, show_progress=False)
    for query in (["file"], ["rate", "limiter"], ["request", "file", "delay"], ["file", "file"]):
        ids = [theirs.vocab_dict[w] for w in query]
        np.testing.assert_allclose(ours.scores(query), theirs.get_scores_from_ids(ids), rtol=1e-6)
    assert BM25Index.from_counts([{"rate": 1, "limiter": 1}, {"file": 3}]).top(["file"], 5) == \
        BM25Index([["rate", "limiter"], ["file"] * 3]).top(["file"], 5)


def test_documents_as_counts_hold_the_words_tokenize_reads():
    from collections import Counter

    from engines.code.lexical_tier import compounds, symbol_counts, symbol_document
    from engines.code.symbols import Symbol

    symbol = Symbol(id="a.py::RateLimiter.allow", kind="method", module="a", qualname="RateLimiter.allow",
                    signature="(self, cost=1)", docstring="Whether the request may go.",
                    source="def allow(self, cost=1):\n    return self.tokenBucket.take(cost) and rate_ok", where="svc/a.py:3",
                    path="/x/svc/a.py", line=3, end_line=4)
    counts = symbol_counts(symbol)
    assert Counter(symbol_document(symbol)) == counts
    assert counts["allow"] == 2 + 1 + 0 + 0  # name twice, body once ("def allow")
    assert counts["ratelimiter"] == 2 and counts["tokenbucket"] == 1 and "rateok" not in counts  # snake only in names
    assert compounds("getHTTPResponse rate_limit Crème_Brûlée x") == ["gethttpresponse", "ratelimit", "cremebrulee"]
