"""spark-submit's main file of the mirroring job: :mod:`falcon_airflow.jobs.mirroring`, from the zip of the jobs package
that ``--py-files`` ships."""

from falcon_airflow.jobs.frame import script_main
from falcon_airflow.jobs.mirroring import main

if __name__ == "__main__":
    script_main(main)
