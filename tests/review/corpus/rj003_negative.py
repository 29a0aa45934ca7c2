"""RJ003 near misses: a job id read as configuration, and ifs that do not submit."""

from airflow.models import Variable
from airflow.sdk import dag, task


def run_now(job_id):
    return job_id


@task
def run_configured_job():
    # The Databricks job *definition* id is configuration: nothing is submitted when it is
    # missing, the task fails instead.
    job_id = Variable.get("nightly_job_id", default_var=None)
    if job_id:
        return run_now(job_id)
    else:
        raise ValueError("nightly_job_id is not configured")


@task
def choose_cluster():
    cluster = Variable.get("cluster_id", default_var=None)
    if cluster:
        return cluster
    return "default-cluster"


@dag(schedule=None)
def config_ifs():
    run_configured_job()
    choose_cluster()


# At parse time: not a task body.
if Variable.get("deploy_job_id", default_var=None):
    run_now("x")
else:
    run_now("y")

config_ifs()
