"""RJ003 positives: hand-written reconnect-or-submit logic on a Variable."""

from airflow.models import Variable
from airflow.sdk import BaseOperator, dag, task

SPARK_KEY = "spark_job_id"


class MySparkOperator(BaseOperator):
    def execute(self, context):
        job_id = Variable.get(SPARK_KEY, default_var=None)
        if job_id and self._is_running(job_id):
            self._wait(job_id)
        else:
            job_id = self.hook.submit()
            Variable.set(SPARK_KEY, job_id)
            self._wait(job_id)

    def _is_running(self, job_id):
        return True

    def _wait(self, job_id):
        return job_id


@task(retries=3)
def early_return(**context):
    if run_id := Variable.get("emr_run_id", default_var=None):
        return wait_for(run_id)
    run_id = start_job_run()
    Variable.set("emr_run_id", run_id)
    return wait_for(run_id)


@task(retries=3)
def negative_test():
    stored = Variable.get("glue_job_run_id", default_var=None)
    if stored is None:
        stored = start_job_run()
    return wait_for(stored)


def start_job_run():
    return "jr_1"


def wait_for(run_id):
    return run_id


@dag(schedule=None)
def reconnect():
    MySparkOperator(task_id="spark")
    early_return()
    negative_test()


reconnect()
