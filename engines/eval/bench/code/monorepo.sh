#!/bin/sh
# The code engine on a monorepo: the 63 semble benchmark repositories as one tree (139 MB, 9,476 code
# files read, 180,036 symbols). They already sit in one folder, so the tree is that folder; nothing is
# copied and nothing is written into it (the benchmark's edit is parsed from a copy under /tmp).
#
#   engines/eval/bench/code/monorepo.sh            # the table (cold, warm x3, baseline, query p50/p90, RSS, edit)
#   engines/eval/bench/code/monorepo.sh --json     # the same as JSON
#   engines/eval/bench/code/monorepo.sh --quick    # one warm open, no baseline
#
# Takes ~5 minutes on 2 free cores (the cold open and the baseline each parse every file); docs/bench-code.md
# has the figures with their dates.
set -e
here=$(cd "$(dirname "$0")/../../../.." && pwd)
tree=${OLAI_MONOREPO:-$here/../shared/data/code/semble/repos}
[ -d "$tree" ] || { echo "engines/eval/bench/code/monorepo.sh: $tree: no such folder (set OLAI_MONOREPO)" >&2; exit 2; }
python=${PYTHON:-$here/.venv/bin/python}
[ -x "$python" ] || python=python3
cd "$here" && exec "$python" -m olai_tui.cli bench code --corpus "$tree" "$@"
