"""One grade given in the evaluation view (a graded query's rows, or an item found by title or path): kept in
the corpus's judgement list the panes write (engines/eval/judgements/store.py) and in the request the view
scores, so the next scoring reads it."""

from __future__ import annotations


def give_grade(screen, suite, request, item: str, title: str, grade: int, where: str = "") -> bool:
    """``grade`` of ``item`` for ``request``'s query kept in the corpus's judgement list and in the request
    (the same grade again clears it); False, said on ``screen``, when it could not be kept."""
    now = request.judged.get(item)
    given = None if now is not None and int(now) == grade else grade  # the same key again clears it
    store = suite.store
    said = len(store.problems)
    try:
        store.grade(request.text, item, given, title=title, where=where)
    except Exception as exc:  # noqa: BLE001 - a data folder that cannot be written: said, the view goes on
        screen.notify(f"Could not keep the grade: {exc}", severity="error", markup=False)
        return False
    if len(store.problems) > said:  # damaged lines the write found and set aside: named
        screen.notify("\n".join(store.problems[said:]), title="Grades", severity="warning", markup=False)
    if given is None:
        request.judged.pop(item, None)
    else:
        request.judged[item] = float(given)
    return True
