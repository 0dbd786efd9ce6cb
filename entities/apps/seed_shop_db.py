"""Make the example's shop database (an SQLite file) when it is not there: 20,000 orders over 2026.

Usage: python seed_shop_db.py [PATH]   (default /tmp/falcon-airflow/shop.db)
"""

from __future__ import annotations

import os
import sqlite3
import sys
from datetime import datetime, timedelta


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
    seed(sys.argv[1] if len(sys.argv) > 1 else "/tmp/falcon-airflow/shop.db")
