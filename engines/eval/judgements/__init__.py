"""A person's own grades of a corpus's rows, and the runs scored on them (issue 47).

- ``store.py``: the judgement list of one engine's corpus, kept under ``$XDG_DATA_HOME/olai-tui/``;
- ``journal.py``: its file as bytes: each line checked, damaged ones set aside, appends that leave no half line;
- ``exchange.py``: TREC qrels (with a queries file) and CSV ``query,id,grade``, read and written;
- ``items.py``: graded items found again after a note moved or a file was edited (the contract alone);
- ``suite.py``: the graded queries as an evaluation suite, scored by the one runner and metrics;
- ``runs.py``: each run kept (ids unique across processes, the latest 50 kept);
- ``compare.py``: two runs compared, refused over other grades (settings named, figures, queries, rows, a paired test).
"""
