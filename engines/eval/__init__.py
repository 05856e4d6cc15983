"""The evaluation behind `olai-tui eval` and `olai-tui bench`, a consumer of the engines' public interface.

- ``<dataset>/``: one package per dataset (its source, licence and one declaration; load.py; configs.py);
- ``configs/``: configurations datasets share; ``catalogue.py``: every dataset, the door eval reads;
- ``datasets.py``, ``suite.py``, ``runner.py``, ``metrics.py``: the one evaluator every dataset goes through;
- ``bench/<engine>/``: each engine's bench, its command's face beside its measurements;
- ``tuning/``: how constants were chosen, on dev data only; nothing else imports it (docs/evaluation.md).
"""
