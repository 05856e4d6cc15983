"""Question-shaped queries for the ``question`` pair kind (in the defaults since the soup; ``--kinds``).

A code-search benchmark asks a repository questions, not doc lines: "how does the scheduler retry a
failed job" (semantic), "where is rate limiting implemented" (architecture), "RateLimiter" or "parse
flags function" (symbol). This builds one such query per documented symbol of the TRAINING corpus from
what the symbol itself says: its doc's first line (a verb phrase when it opens with a third-person verb),
its name as words and its module's name, with one template chosen by a seeded hash. The templates are
written here from how people ask about code; no benchmark's queries are read.
"""

from __future__ import annotations

import hashlib
import re

_WORD = re.compile(r"^[a-z]+$")
# Verbs a doc line opens with in the imperative ("Compute all shortest paths", "Check whether ...")
IMPERATIVE = frozenset("""add allocate apply assign build calculate call check clean clear close collect combine compare
compute configure connect convert copy count create decode delete determine encode ensure evaluate execute extract
fetch fill filter find format generate get group handle initialize initialise insert install join load lookup make
map merge move normalize normalise open parse perform prepare print process read register reload remove render
replace reset resolve return run save search send serialize set sort split start stop store test transform
try update validate verify wait walk wrap write""".split())
_TAIL = re.compile(r"[\s.:;,]+$")

SEMANTIC = ("how does {module} {verb}", "how do i {verb}", "where does the code {verb3}",
            "where do we {verb}", "what code {verb3}", "how to {verb}")
ARCHITECTURE = ("where is {words} implemented", "which module handles {words}", "which file defines {words}",
                "where is the logic that {verb3}", "which module {verb3}", "where in {module} is {words}")
SYMBOL = ("{name}", "{words} {kind}", "{name} {kind}", "the {words} {kind}")
NOUN = ("where is {phrase} implemented", "what handles {phrase}", "how does {module} handle {phrase}",
        "which module is about {phrase}")


def _base(verb: str) -> str | None:
    """A third-person verb's base form ("parses" -> "parse", "applies" -> "apply"); None if not one."""
    if not _WORD.match(verb) or len(verb) < 4 or not verb.endswith("s") or verb.endswith(("ss", "us", "is")):
        return None
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "xes", "zes", "sses")):
        return verb[:-2]
    return verb[:-1]


def _pick(seed: int, key: str, options: tuple[str, ...]) -> str:
    return options[int.from_bytes(hashlib.sha256(f"{seed}:q:{key}".encode()).digest()[:4], "big") % len(options)]


def question(seed: int, key: str, summary: str, words: str, name: str, kind: str, module: str) -> str:
    """One question-shaped query for a symbol; "" when nothing fits."""
    phrase = _TAIL.sub("", summary.strip())
    first, _, rest = phrase.partition(" ")
    lowered = first[:1].lower() + first[1:]
    if phrase.startswith(("@", "-", "{", "<", "[", "(", ":")) or len(phrase.split()) < 3:
        phrase = ""  # a tag, a flag or a fragment: no sentence to ask with
    base = (lowered if lowered in IMPERATIVE else _base(lowered)) if rest else None
    kind = {"function": "function", "method": "method", "class": "class"}.get(kind, "function")
    fill = {"module": module or "it", "words": words, "name": name, "kind": kind}
    category = _pick(seed, key + ":c", ("semantic", "architecture", "symbol"))
    if category == "symbol" or not phrase:
        options = SYMBOL if words else ()
    elif base:
        third = lowered if lowered != base else (base + "es" if base.endswith(("ch", "sh", "s", "x", "z")) else
                                                 base[:-1] + "ies" if base.endswith("y") and base[-2:-1] not in "aeiou"
                                                 else base + "s")
        fill.update(verb=f"{base} {rest}", verb3=f"{third} {rest}")
        options = SEMANTIC if category == "semantic" else ARCHITECTURE
    else:
        fill.update(phrase=phrase[:1].lower() + phrase[1:])
        options = NOUN
    if not options or (not words and any("{words}" in o for o in options)):
        return ""
    return _pick(seed, key, options).format(**fill)
