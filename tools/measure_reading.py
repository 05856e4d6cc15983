"""Dev requests over the reading folder (tools/reading_requests.jsonl, written before any tuning: half
answered on a PDF page, half in an Org section, paraphrased): for each tier alone and for the answer,
the share whose file is in the first 3 rows, and of those, whose first row from that file is the right
page (PDF) or section (Org: the heading's line).

    PYTHONPATH=. .venv/bin/python tools/measure_reading.py [--corpus DIR] [--tiers exact,words,semantic,answer]

The answer is what `olai-tui search notes QUERY --corpus DIR --wait --json` prints (every tier, the
model's index waited for). Prints one JSON object: per configuration, in_top3, right_place, and misses.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engines.locations import shared_data
from engines.notes.engine import NotesEngine

HERE = Path(__file__).resolve().parent
CONFIGS = {"exact": ("exact",), "words": ("words",), "semantic": ("semantic",), "answer": None}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(shared_data() / "notes" / "reading"))
    parser.add_argument("--tiers", default=",".join(CONFIGS))
    parser.add_argument("--no-wait", action="store_true",
                        help="meaning as a one-shot search without --wait has it: the static vectors stand in "
                             "for what the model has not embedded yet")
    args = parser.parse_args()
    requests = [json.loads(line) for line in (HERE / "reading_requests.jsonl").read_text().splitlines() if line.strip()]
    engine = NotesEngine(args.corpus, wait_for_index=not args.no_wait)
    if args.no_wait:
        engine.wait_for(None, 60.0)  # the static vectors of every note (seconds), not the model's (an hour here)
    out = {}
    for name in args.tiers.split(","):
        tiers = CONFIGS[name]
        found = right = 0
        misses = []
        for request in requests:
            answer = engine.collect(request["query"], engine.search(request["query"], limit=10, tiers=tiers))
            top = [h.to_json() for h in answer.hits[:3]]
            mine = [h for h in top if h["id"].split("#")[0] == request["file"]]
            if not mine:
                misses.append(request["query"][:60])
                continue
            found += 1
            want = {"page": request["page"]} if "page" in request else {"line": request["line"]}
            key, value = next(iter(want.items()))
            right += mine[0].get(key) == value or (key == "line" and value == 1 and "line" not in mine[0])
        out[name] = {"in_top3": round(found / len(requests), 3), "right_place": round(right / len(requests), 3),
                     "requests": len(requests), "misses": misses}
    engine.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
