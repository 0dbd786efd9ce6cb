"""Migrations of the store's tables (see :mod:`falcon_airflow.provider.store_database`)."""
