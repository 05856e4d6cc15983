"""Two kept runs compared: "did this setting, model or version help on my corpus", said only where the
comparison means something (issue 57).

Refused first: two runs scored on different grades or different queries measure different things
(a figure over 4 queries against one over 2), so ``mismatch`` names how they differ and the command
refuses unless told ``--force``. Then every setting, model and version that differs between the two
runs is named (``differences``): a figure that moved with no change named would be a mystery.

Per configuration both have: each figure before and after (a tier that was off or unavailable in a
run says so instead of its 0.000); the queries whose nDCG@10 rose or fell; the rows that entered and
left each query's top 10, and the top 10s' overlap as OpenSearch's Search Relevance Workbench measures
a pairwise experiment (Jaccard of the two sets); and a paired t-test over the queries' nDCG@10 (scipy's
ttest_rel, the test ranx and PyTerrier's experiments run), from ``MIN_TESTED`` queries: a difference
with p under 0.05 is called more than noise, else within noise.
"""

from __future__ import annotations

import math

SIGNIFICANT = 0.05  # the p under which a paired difference is called more than noise
FIGURE = "ndcg@10"  # the per-query figure queries are compared and tested on
# No test below this many queries: a t-test's p over fewer is decided by one or two queries' swings
# and its normality cannot be checked; Sakai (2014, "Statistical reform in information retrieval?")
# and TREC practice use 25-50 topics; 10 is the floor where a paired test starts to mean anything.
MIN_TESTED = 10
NOT_ANSWERING = ("off", "unavailable", "failed")


def mismatch(before: dict, grades: dict) -> list[str]:
    """How the grades that scored ``before`` differ from ``grades`` (runs.grades_of); [] when the same."""
    was = before.get("grades") or {}
    if not was.get("sha256"):
        return [f"run {before['id']} does not say which grades scored it (kept by an earlier olai-tui)"]
    if was["sha256"] == grades["sha256"]:
        return []
    lines = [f"the grades differ: run {before['id']} was scored on {was.get('grades', '?')} grades of "
             f"{len(was.get('queries', []))} queries ({before.get('graded_by', '?')}), this run on "
             f"{grades['grades']} grades of {len(grades['queries'])} queries"]
    gone = [q for q in was.get("queries", []) if q not in grades["queries"]]
    new = [q for q in grades["queries"] if q not in was.get("queries", [])]
    for word, queries in (("only in the earlier run", gone), ("only in this run", new)):
        if queries:
            lines.append(f"queries {word}: " + ", ".join(repr(q) for q in queries[:5])
                         + (f" and {len(queries) - 5} more" if len(queries) > 5 else ""))
    return lines


def _flat(prefix: str, value, out: dict) -> dict:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value
    return out


def differences(before: dict, after: dict) -> list[str]:
    """Every setting, model and version that differs between the two runs, one line each."""
    lines = []
    for part in ("source", "settings", "tiers"):
        a, b = _flat("", before.get(part) or {}, {}), _flat("", after.get(part) or {}, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                lines.append(f"{part} {key}: {_said(a.get(key))} → {_said(b.get(key))}")
    return lines


def _said(value) -> str:
    if value is None:
        return "(not set)"
    if value == "":
        return "(empty)"
    return str(value)


def _paired(before: list[float], after: list[float]) -> float | None:
    """The paired t-test's p over queries (None: no difference at all)."""
    from scipy.stats import ttest_rel

    if all(a == b for a, b in zip(before, after)):
        return None
    p = float(ttest_rel(after, before).pvalue)
    return None if math.isnan(p) else p


def _verdict(pairs: tuple[list, list]) -> tuple[float | None, str]:
    if pairs[0] == pairs[1]:
        return None, "no difference"
    if len(pairs[0]) < MIN_TESTED:
        return None, f"not tested (under {MIN_TESTED} queries, a paired t-test is decided by one query's swing)"
    p = _paired(*pairs)
    if p is None:
        return None, "no difference"
    return p, "more than noise" if p < SIGNIFICANT else "within noise"


def compare(before: dict, after: dict) -> dict:
    """What changed from ``before`` to ``after``, per configuration both have."""
    out = {"before": before["id"], "after": after["id"], "changed": differences(before, after), "configs": {}}
    for name, now in after["configs"].items():
        was = before["configs"].get(name)
        if was is None:
            continue
        figures = {k: {"before": was["metrics"].get(k), "after": v} for k, v in now["metrics"].items()
                   if k in was["metrics"] and not k.endswith("_ms")}
        better, worse, rows, overlap, pairs = [], [], [], [], ([], [])
        for query, row in now["queries"].items():
            old = was["queries"].get(query)
            if old is None:
                continue
            a, b = old.get(FIGURE), row.get(FIGURE)
            if a is not None and b is not None:
                pairs[0].append(a)
                pairs[1].append(b)
                if b > a:
                    better.append({"query": query, "before": a, "after": b})
                elif b < a:
                    worse.append({"query": query, "before": a, "after": b})
            top_a, top_b = old.get("top", [])[:10], row.get("top", [])[:10]
            entered = [i for i in top_b if i not in top_a]
            left = [i for i in top_a if i not in top_b]
            union = set(top_a) | set(top_b)
            overlap.append(len(set(top_a) & set(top_b)) / len(union) if union else 1.0)
            if entered or left:
                rows.append({"query": query, "entered": entered, "left": left})
        p, verdict = _verdict(pairs)
        out["configs"][name] = {
            "figures": figures, "better": better, "worse": worse, "rows": rows,
            "states": {"before": (before.get("tiers") or {}).get(name), "after": (after.get("tiers") or {}).get(name)},
            "jaccard@10": round(sum(overlap) / len(overlap), 4) if overlap else None,
            "paired": {"figure": FIGURE, "queries": len(pairs[0]), "p": None if p is None else round(p, 4),
                       "verdict": verdict}}
    return out


def compare_lines(found: dict) -> list[str]:
    """The comparison as a person reads it: what changed, then a configuration at a time."""
    lines = [f"against run {found['before']} (this run: {found['after']})"]
    lines += [f"  changed: {line}" for line in found.get("changed", [])] or ["  no setting, model or version changed"]
    for name, c in found["configs"].items():
        states = c.get("states", {})
        off = {when: s for when, s in states.items() if s in NOT_ANSWERING}
        if off:
            said = "; ".join(f"{s} in {'the earlier' if when == 'before' else 'this'} run" for when, s in off.items())
            lines.append(f"{name}: {said}: its figures there are of no answer, not compared")
            continue
        shown = ", ".join(f"{k} {_n(v['before'])} → {_n(v['after'])}" for k, v in c["figures"].items()
                          if v["before"] != v["after"]) or "figures unchanged"
        test = c["paired"]
        p = f", p = {test['p']:.3f}" if test["p"] is not None else ""
        lines.append(f"{name}: {shown}; {test['figure']} over {test['queries']} queries: {test['verdict']}{p};"
                     f" top-10 overlap (Jaccard) {_n(c['jaccard@10'])}")
        for word, moved in (("better", c["better"]), ("worse", c["worse"])):
            for q in moved:
                lines.append(f"  {word}: {q['query']!r} {q['before']:.3f} → {q['after']:.3f}")
        for r in c["rows"]:
            lines.append(f"  {r['query']!r}: entered the top 10: {', '.join(r['entered']) or 'none'};"
                         f" left it: {', '.join(r['left']) or 'none'}")
    return lines


def _n(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.3f}"
