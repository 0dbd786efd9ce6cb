"""``python -m falcon_airflow.cli``: the same as ``falcon-airflow``."""

from __future__ import annotations

import sys

from falcon_airflow.cli import main

sys.exit(main())
