"""Airflow reads this file too: while a Falcon entity of the entities folder is invalid, importing it fails with
the list of invalid entities (file:line, rule, message), so the Airflow UI shows them among its DAG import errors.
The valid entities' DAGs (falcon_entities.py) are not affected. [falcon] invalid_entities_as_import_errors = false
turns this off (the falcon.invalid-entities DAG still lists them).
"""

from falcon_airflow.dags.loader import report_invalid_entities

report_invalid_entities(__file__)
