"""Products: catalogue, request reading, hard rules, recall sources, judges and ordering (issue 5)."""
