"""spark-submit's main file of the column-lineage driver: :mod:`falcon_airflow.jobs.lineage_driver`, from the zip of the
jobs package that ``--py-files`` ships."""

from falcon_airflow.jobs.frame import script_main
from falcon_airflow.jobs.lineage_driver import main

if __name__ == "__main__":
    script_main(main)
