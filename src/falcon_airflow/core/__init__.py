"""The rules both sides need, with no third-party import: the Airflow side imports them and every Spark job gets
them shipped, so a rule is written once (see docs/architecture.md)."""
