"""`olai-tui tune`: a budgeted search over an engine's knobs (engines/knobs.py), scored on a person's own
grades by the judgements runner and cross-validated over their queries (docs/tuning.md).

- candidates.py: which settings are tried (a grid for few knobs, a coordinate sweep then random
  settings for many);
- folds.py: the k folds, and each fold's setting chosen on the other folds' queries alone;
- search.py: the settings scored through engines/eval/runner.py and what a person reads.
"""
