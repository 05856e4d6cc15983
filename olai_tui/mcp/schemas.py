"""The MCP tools' input schemas, built from the engine registry, and the strict check of a call's arguments.

Every schema is a flat object with ``additionalProperties: false`` and no nullable unions (some clients
reject ``anyOf [X, null]``: ck #106): an argument is either given or absent. The engine names, their
tiers and their options come from ``engines.registry``: an engine registered there appears here with
no code of its own. The SDK's low-level server passes arguments through unchecked, so :func:`check`
applies the schema itself and says what is wrong in one line, naming the argument.
"""

from __future__ import annotations

from typing import Any

from engines import registry

QUERY_MAX = 2_000  # characters: a search query, not a document; a 100 KB paste is refused, not embedded
LIMIT_MAX = 100  # rows an answer may ask for: more would flood an agent's context, not inform it
ID_MAX = 4_096  # characters of a hit id (a path and a line, a symbol's name, a product code)


class BadArguments(ValueError):
    """A call's arguments break its schema; the message is one line naming the argument."""


def _option_schema(option) -> dict[str, Any]:
    if getattr(option, "kind", "str") == "list":
        return {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200},
                "minItems": 1, "maxItems": 50, "uniqueItems": True}
    return {"type": "string", "minLength": 1, "maxLength": 1_000}


def _options() -> dict[str, dict[str, Any]]:
    """Each registry option as an argument, described with the engines that take it."""
    takers: dict[str, list[str]] = {}
    schemas: dict[str, dict[str, Any]] = {}
    helps: dict[str, str] = {}
    for name in registry.names():
        for option in registry.spec(name).options:
            takers.setdefault(option.name, []).append(name)
            schemas[option.name] = _option_schema(option)
            helps[option.name] = option.help
    return {key: {**schemas[key], "description": f"{', '.join(takers[key])} only: {helps[key]}"}
            for key in schemas}


def option_takers() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for name in registry.names():
        for option in registry.spec(name).options:
            out.setdefault(option.name, []).append(name)
    return {k: tuple(v) for k, v in out.items()}


def search_schema() -> dict[str, Any]:
    names = list(registry.names())
    properties: dict[str, Any] = {
        "engine": {"type": "string", "enum": names,
                   "description": "which corpus to search: " + "; ".join(
                       f"{n}: {registry.spec(n).summary}" for n in names)},
        "query": {"type": "string", "minLength": 1, "maxLength": QUERY_MAX,
                  "description": "what to look for, in your own words or the exact words you expect"},
        "limit": {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "default": 10,
                  "description": f"at most this many rows (1-{LIMIT_MAX}; default 10)"},
        # Tier names differ per engine; the call is checked against the chosen engine's own tiers.
        "tiers": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 40}, "minItems": 1,
                  "maxItems": 10, "uniqueItems": True,
                  "description": "the tiers to ask (default: the engine's defaults); the status tool lists "
                                 "each engine's tiers. Evidence tiers alone never load the model."},
    }
    properties.update(_options())
    return {"type": "object", "properties": properties, "required": ["engine", "query"],
            "additionalProperties": False}


def read_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "engine": {"type": "string", "enum": list(registry.names()), "description": "the engine the hit came from"},
        "id": {"type": "string", "minLength": 1, "maxLength": ID_MAX,
               "description": "a hit's `id`, exactly as search returned it"},
    }
    properties.update(_options())
    return {"type": "object", "properties": properties, "required": ["engine", "id"], "additionalProperties": False}


def status_schema() -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": {
        "engine": {"type": "string", "enum": list(registry.names()),
                   "description": "one engine (default: every engine)"}}}


# -- the check ---------------------------------------------------------------------------------------
_TYPES = {"string": str, "integer": int, "array": list, "object": dict, "boolean": bool}


def check(tool: str, schema: dict[str, Any], arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments with defaults filled in, or BadArguments (one line) for the first thing wrong."""
    arguments = dict(arguments or {})
    properties = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise BadArguments(f"{tool}: unknown argument {_shown(unknown[0])} ({tool} takes: {', '.join(properties)})")
    for key in schema.get("required", ()):
        if key not in arguments:
            raise BadArguments(f"{tool}: missing argument {key!r}")
    for key, value in arguments.items():
        _check_value(f"{tool}: {key}", properties[key], value)
    for key, spec in properties.items():
        if key not in arguments and "default" in spec:
            arguments[key] = spec["default"]
    return arguments


def _check_value(label: str, spec: dict[str, Any], value: Any) -> None:
    kind = spec.get("type")
    expected = _TYPES.get(kind)
    if expected is not None and (not isinstance(value, expected) or (kind == "integer" and isinstance(value, bool))):
        raise BadArguments(f"{label}: must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not {_kind_of(value)}")
    if "enum" in spec and value not in spec["enum"]:
        raise BadArguments(f"{label}: unknown value {_shown(value)} (choose from {', '.join(map(str, spec['enum']))})")
    if kind == "string":
        if len(value) < spec.get("minLength", 0) or not value.strip():
            raise BadArguments(f"{label}: must not be empty")
        if len(value) > spec.get("maxLength", len(value)):
            raise BadArguments(f"{label}: too long ({len(value):,} characters; at most {spec['maxLength']:,})")
    if kind == "integer" and not spec.get("minimum", value) <= value <= spec.get("maximum", value):
        raise BadArguments(f"{label}: must be from {spec['minimum']} to {spec['maximum']}, not {value}")
    if kind == "array":
        if len(value) < spec.get("minItems", 0):
            raise BadArguments(f"{label}: must name at least {spec['minItems']}")
        if len(value) > spec.get("maxItems", len(value)):
            raise BadArguments(f"{label}: at most {spec['maxItems']} items, not {len(value)}")
        if spec.get("uniqueItems") and len({repr(v) for v in value}) != len(value):
            raise BadArguments(f"{label}: names an item twice")
        for item in value:
            _check_value(label, spec.get("items", {}), item)


def _kind_of(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def _shown(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width] + "...'"
