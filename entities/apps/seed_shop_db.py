"""Make the example's shop database (an SQLite file) when it is not there: 20,000 orders over 2026.

Usage: python seed_shop_db.py ENTITIES_DIR
The file is where the ``shop-db`` datasource of that entities folder says (``jdbc:sqlite:PATH``), so a copy of the
example whose storage was moved elsewhere gets its database there too.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from datetime import datetime, timedelta
from pathlib import Path


def database_path(entities: Path) -> str:
    text = (entities / "datasources" / "shop-db.xml").read_text(encoding="utf-8")
    found = re.search(r'endpoint="jdbc:sqlite:([^"]+)"', text)
    if found is None:
        raise SystemExit(f"{entities / 'datasources' / 'shop-db.xml'}: no jdbc:sqlite: endpoint")
    return found.group(1)


def seed(path: str) -> None:
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.tmp-{os.getpid()}"
    connection = sqlite3.connect(temporary)
    with connection:
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, "
                           "amount REAL NOT NULL, placed_at TEXT NOT NULL, note TEXT)")
        start = datetime(2026, 1, 1)
        connection.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
            ((n, f"customer-{n % 250:03d}", round((n * 37 % 10000) / 100, 2),
              (start + timedelta(minutes=n * 26)).strftime("%Y-%m-%d %H:%M:%S"), None) for n in range(1, 20001)))
    connection.close()
    os.replace(temporary, path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    seed(database_path(Path(sys.argv[1])))
