"""Reading documents at the size people bring: the reading folder cold (a fresh cache) and warm (its
saved index) to the evidence tiers, and a folder of 1,000 PDFs (copies of the papers), each as the
command a person runs, in a child process, wall time and peak memory (ru_maxrss) per run, medians.
A baseline in the same run: the demo notebook (fixtures/notes), cold, the same command.

    PYTHONPATH=. .venv/bin/python tools/bench_documents.py [--runs 3] [--thousand]

Prints one JSON object (docs/notes-documents.md keeps the history).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from engines.locations import shared_data  # noqa: E402

READING = shared_data() / "notes" / "reading"  # ../shared/data beside the checkout (OLAI_SHARED_DATA)
# answered by the words tier (no note holds every word), so the words index is built and saved, as a person's
# first query does; a query that exact alone fills never builds it, and the next open reads again
QUERY = "how lenders loosen their standards in good times"


def run(corpus: Path, cache: str) -> tuple[float, float]:
    """(seconds, peak MB) of one `olai-tui search notes QUERY --corpus ... --tiers exact,words`."""
    command = [sys.executable, "-c", "import sys; from olai_tui.cli import main; sys.exit(main(sys.argv[1:]))",
               "search", "notes", QUERY, "--corpus", str(corpus), "--tiers", "exact,words", "--json"]
    env = dict(os.environ, XDG_CACHE_HOME=cache, PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"{corpus}: exit {status}")
    return seconds, usage.ru_maxrss / 1024


def cold_and_warm(corpus: Path, runs: int) -> dict:
    cold, warm = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(run(corpus, cache))
            warm.append(run(corpus, cache))
    med = lambda xs, i: round(statistics.median(x[i] for x in xs), 2)
    return {"cold_s": med(cold, 0), "warm_s": med(warm, 0), "cold_peak_mb": med(cold, 1), "warm_peak_mb": med(warm, 1),
            "runs": runs}


def thousand_pdfs(where: Path) -> Path:
    papers = sorted(glob.glob(str(READING / "papers" / "**" / "*.pdf"), recursive=True))
    where.mkdir(parents=True, exist_ok=True)
    for i in range(1000):
        source = papers[i % len(papers)]
        target = where / f"{i // 100:02d}" / f"{i:04d}-{os.path.basename(source)}"
        target.parent.mkdir(exist_ok=True)
        if not target.exists():
            shutil.copyfile(source, target)
    time.sleep(3)  # a file modified in the last 2 s is read again by the next open (store.py's RACY_SECONDS)
    return where


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--thousand", action="store_true", help="also 1,000 PDFs (copies of the papers; 1 run)")
    args = parser.parse_args()
    out = {"baseline_demo": cold_and_warm(ROOT / "fixtures" / "notes", args.runs),
           "reading_folder": cold_and_warm(READING, args.runs)}
    if args.thousand:
        with tempfile.TemporaryDirectory() as scratch:
            out["thousand_pdfs"] = cold_and_warm(thousand_pdfs(Path(scratch) / "pdfs"), 1)
    out["cores"], out["load_1min"] = os.cpu_count(), round(os.getloadavg()[0], 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
