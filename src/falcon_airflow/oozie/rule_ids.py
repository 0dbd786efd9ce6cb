"""The validation rule ids of Oozie workflows that other rooms name too (the rules' coverage table), apart from the
model so that naming them costs no import of it."""

from __future__ import annotations

UNSUPPORTED_RULE = "FA020"
"""An action that cannot run here (see :mod:`falcon_airflow.oozie.support`)."""
NOT_APPLIED_RULE = "FA025"
"""An element that is read but has no effect here."""
