"""The products engine as config.toml sets it up (the registry's way to open it): the judge and
recall's backend from the config, a problem with either a notice, never a stop."""

from __future__ import annotations

from pathlib import Path

from engines.products.catalogue import CatalogueError
from engines.products.engine import ProductsEngine


def open_configured(corpus: Path, wait_for_index: bool = False) -> ProductsEngine:
    """The engine as config.toml sets it up: the HTTP judge where one is configured (else the rules
    judge, offline) and recall's backend; a problem with the config is a notice, never a stop."""
    from engines.products.backends.router import router_from_config
    from engines.products.http_judge import judge_from_config

    judge, judge_problem = judge_from_config()
    try:
        engine = ProductsEngine(corpus, judge=judge, wait_for_index=wait_for_index)
    except (OSError, ValueError) as exc:  # the knowledge map beside a catalogue is unreadable or malformed
        raise CatalogueError(f"{corpus}: {exc}") from None
    engine.router, router_problem = router_from_config(engine)
    engine.config_notices = [p for p in (judge_problem, router_problem) if p]
    return engine
