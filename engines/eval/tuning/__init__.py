"""Tuning on dev data only, never imported by a bench or an evaluation: code_fields.py chose the code
engine's lexical field weights, its BM25 library, density and merge on CoSQA dev-500; semble_blend.py the
fused blend's weight on semble's dev repositories. Each constant they chose cites its command beside it."""
