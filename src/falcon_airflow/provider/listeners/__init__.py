"""Airflow listeners registered by the plugin."""
