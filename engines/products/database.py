"""A catalogue kept in a database: ``sqlite:///path/to.db`` or ``postgresql://user@host:port/db``.

The rows come from the table (or the query) named in config.toml, or from the database's only table:

    [products.database]
    table = "tuotteet"            # or: query = "SELECT ... FROM ... WHERE aktiivinen"

and become a ``Table`` like any export, so the same column mapping (``columns.py``) reads them. Rows
are ordered by the mapped code column when a table is named (a query keeps its own order), so two
reads of unchanged rows are the same catalogue, in the same order, with the same content hash.
The database is opened read-only (SQLite ``mode=ro``, a PostgreSQL read-only session): nothing is
ever written into what is searched.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from engines.locations import shown_url

from engines.products.tables import Table, TableError, _cell_text

SCHEMES = ("sqlite://", "postgresql://", "postgres://")


def is_database_url(corpus) -> bool:
    return isinstance(corpus, str) and corpus.lower().startswith(SCHEMES)


def database_settings() -> tuple[str, str]:
    from engines.settings import read_config

    section = read_config().section("products", "database") or {}
    if not isinstance(section, dict):
        return "", ""
    return str(section.get("table") or ""), str(section.get("query") or "")


def read_database(url: str, table: str = "", query: str = "", order_by=None) -> Table:
    """The rows of ``table`` or ``query`` (config.toml's when not given); ``order_by(header)`` names the
    column to sort a table's rows on (the mapped code column), or None."""
    if not table and not query:
        table, query = database_settings()
    if url.lower().startswith("sqlite://"):
        return _read_sqlite(url, table, query, order_by)
    return _read_postgresql(url, table, query, order_by)


def sqlite_path(url: str) -> Path:
    """``sqlite:///abs/path.db`` (and SQLAlchemy's ``sqlite:////abs/path.db``) -> the file."""
    rest = url[len("sqlite://"):]
    if rest.startswith("//"):
        rest = rest[1:]
    path = Path(rest)
    if not path.exists() and Path(rest.lstrip("/")).exists():
        path = Path(rest.lstrip("/"))  # sqlite:///relative.db
    return path


def _read_sqlite(url: str, table: str, query: str, order_by) -> Table:
    import sqlite3

    path = sqlite_path(url)
    if not path.is_file():
        raise TableError(f"no such database file {path}")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise TableError(f"not readable ({exc})") from None
    try:
        if not query:
            names = [r[0] for r in connection.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name")]
            table = table or _only_table(names)
            if table not in names:
                raise TableError(f"no table {table!r} (tables: {', '.join(names) or 'none'})")
            quoted = '"' + table.replace('"', '""') + '"'
            header = [d[0] for d in connection.execute(f"SELECT * FROM {quoted} LIMIT 0").description]
            column = order_by(header) if order_by else None
            order = ' ORDER BY "' + column.replace('"', '""') + '"' if column else ""
            query = f"SELECT * FROM {quoted}{order}"
        cursor = connection.execute(query)
        header = [d[0] for d in cursor.description]
        rows = [(n, [_cell_text(v) for v in row]) for n, row in enumerate(cursor, 1)]
    except sqlite3.Error as exc:
        raise TableError(" ".join(str(exc).split())) from None
    finally:
        connection.close()
    return Table(f"{shown_url(url)}#{table or 'query'}", header, rows, [],
                 f"SQLite {path.name}, " + (f"table {table}" if table else "query from config.toml"), 0)


def _read_postgresql(url: str, table: str, query: str, order_by) -> Table:
    try:
        import psycopg
        from psycopg import sql
    except ImportError:
        raise TableError("psycopg is not installed: pip install -e '.[postgres]'") from None
    try:
        with psycopg.connect(url, connect_timeout=10) as connection:
            connection.read_only = True
            with connection.cursor() as cursor:
                statement = sql.SQL(query) if query else None
                if not query:
                    cursor.execute("SELECT table_schema, table_name FROM information_schema.tables "
                                   "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
                                   "ORDER BY table_schema, table_name")
                    found = [(s, t) for s, t in cursor.fetchall()]
                    names = [t if s == "public" else f"{s}.{t}" for s, t in found]
                    table = table or _only_table(names)
                    if table not in names:
                        raise TableError(f"no table {table!r} (tables: {', '.join(names) or 'none'})")
                    schema, _, bare = table.rpartition(".")
                    name = sql.Identifier(schema or "public", bare)
                    cursor.execute(sql.SQL("SELECT * FROM {} LIMIT 0").format(name))
                    column = order_by([d.name for d in cursor.description]) if order_by else None
                    statement = sql.SQL("SELECT * FROM {}").format(name)
                    if column:
                        statement = sql.SQL("{} ORDER BY {}").format(statement, sql.Identifier(column))
                cursor.execute(statement)
                header = [d.name for d in cursor.description]
                rows = [(n, [_cell_text(v) for v in row]) for n, row in enumerate(cursor.fetchall(), 1)]
    except TableError:
        raise
    except psycopg.Error as exc:
        raise TableError(" ".join(str(exc).split())[:300]) from None
    return Table(f"{shown_url(url)}#{table or 'query'}", header, rows, [],
                 "PostgreSQL, " + (f"table {table}" if table else "query from config.toml"), 0)


def _only_table(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    raise TableError(f"{len(names)} tables ({', '.join(names[:12]) or 'none'}): name one in config.toml "
                     f"[products.database] table = \"...\" (or query = \"SELECT ...\")")


def rows_hash(table: Table) -> str:
    """A content hash of the header and rows: an unchanged catalogue keeps its hash across reads."""
    digest = hashlib.sha256()
    for cells in [table.header, *(cells for _, cells in table.rows)]:
        digest.update("\x1f".join(cells).encode("utf-8", "surrogatepass") + b"\x1e")
    return digest.hexdigest()[:16]
