"""spark-submit's main file of Oozie's fs action: :mod:`falcon_airflow.jobs.oozie_fs`, from the zip of the jobs package
that ``--py-files`` ships."""

from falcon_airflow.jobs.frame import script_main
from falcon_airflow.jobs.oozie_fs import main

if __name__ == "__main__":
    script_main(main)
