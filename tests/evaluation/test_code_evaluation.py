"""The code engine's evaluation configurations (engines/eval/cosqa/configs.py) on a small CoSQA-shaped folder.

Real parts throughout: the CoSQA reader, both BM25 libraries, the engine. The embedding configurations
need the model and the whole CoSQA index, so they are measured by `olai-tui eval code`, not here.
"""

from __future__ import annotations

import json

import pytest

from engines.code.engine import CodeEngine
from engines.eval.cosqa.configs import CONFIGS, CodeConfigs, cosqa_requests
from engines.code.merge import MERGES

FUNCTIONS = [
    "def rate_limit(requests, window):\n    \"\"\"Throttle requests per client within a time window.\"\"\"\n    return requests < window\n",
    "def read_json(path):\n    \"\"\"Load a json file from disk.\"\"\"\n    import json\n    return json.load(open(path))\n",
    "def flatten(nested):\n    \"\"\"Flatten a nested list of lists.\"\"\"\n    return [x for row in nested for x in row]\n",
    "def last_item(items):\n    \"\"\"Get the last element of a list.\"\"\"\n    return items[-1]\n",
    "def remove_directory(path):\n    \"\"\"Remove a directory recursively.\"\"\"\n    import shutil\n    shutil.rmtree(path)\n",
    "def to_upper(text):\n    return text.upper()\n",
]
QUERIES = [("python throttle requests per client", "0"), ("python load json file", "1"),
           ("flatten a list of lists python", "2"), ("get last element of list python", "3"),
           ("python remove directory recursively", "4"), ("uppercase a string python", "5")]


@pytest.fixture()
def cosqa(tmp_path):
    (tmp_path / "code_idx_map.txt").write_text(json.dumps({code: i for i, code in enumerate(FUNCTIONS)}))
    (tmp_path / "cosqa-retrieval-dev-500.json").write_text(
        json.dumps([{"doc": q, "retrieval_idx": int(a)} for q, a in QUERIES]))
    return tmp_path


def test_the_issue_configurations_are_offered_by_name():
    assert CONFIGS == ("lexical", "lexical_rank_bm25", "embedding", "merged", "fused", "rrf-equal", "code_table", "default")
    assert MERGES == ("fused", "merged")


def test_rank_bm25_ranks_the_same_tokens_as_the_lexical_tier(cosqa):
    factories = CodeConfigs(cosqa).factories()
    assert set(factories) == set(CONFIGS)
    lexical, okapi = factories["lexical"](), factories["lexical_rank_bm25"]()
    for query, answer in QUERIES[:5]:  # each has words in its function's name and docstring
        assert lexical(query)[0] == answer
        assert okapi(query)[0] == answer
    assert okapi("") == []


def test_requests_read_dev_and_leave_heldout_out_when_absent(cosqa, tmp_path):
    requests = cosqa_requests(cosqa, tmp_path / "no-such-heldout")
    assert [r.split for r in requests] == ["dev"] * len(QUERIES)
    assert requests[3].judged == {"3": 1.0} and requests[3].text == QUERIES[3][0]


def test_the_earlier_name_fill_still_means_merged_and_an_unknown_merge_is_refused(cosqa):
    from engines.eval.cosqa.load import load_functions

    symbols = load_functions(cosqa)
    assert CodeEngine(symbols=symbols, merge="fill").merge == "merged"
    with pytest.raises(ValueError, match="unknown merge"):
        CodeEngine(symbols=symbols, merge="interleave")
