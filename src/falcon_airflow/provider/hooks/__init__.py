"""Airflow hooks of the Falcon provider."""
