"""spark-submit's main file of the database export job: :mod:`falcon_airflow.jobs.db_export`, from the zip of the jobs
package that ``--py-files`` ships."""

from falcon_airflow.jobs.db_export import main
from falcon_airflow.jobs.frame import script_main

if __name__ == "__main__":
    script_main(main)
