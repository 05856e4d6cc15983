"""What every Milvus backend shares (products' recall, code's search): one seam, not a copy.

| module | one reason to change |
|---|---|
| `asking.py` | a call within a deadline behind a breaker; late and failed calls named in one line |
| `versions.py` | the published pointer, filling a version, rollback, status, pruning |
| `connection.py` | a client of its own and what a search resolved first, dropped after a failure |
| `command.py` | `index ENGINE --backend milvus`: its arguments checked, a failure said in one line |
| `server.py` | milvus-lite's own binary on loopback, started, stalled and stopped by PID (tests, benches) |
"""
