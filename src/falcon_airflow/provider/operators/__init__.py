"""Airflow operators of the Falcon provider."""
