"""spark-submit's main file of the database import job: :mod:`falcon_airflow.jobs.db_import`, from the zip of the jobs
package that ``--py-files`` ships."""

from falcon_airflow.jobs.db_import import main
from falcon_airflow.jobs.frame import script_main

if __name__ == "__main__":
    script_main(main)
