"""RJ001 positives: Variables used as per-run state inside tasks."""

import airflow.models as models
from airflow.models import Variable
from airflow.models.variable import Variable as ModelVariable
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import BaseOperator, dag, task
from airflow.sdk import Variable as V

CURSOR_KEY = "orders_cursor"


def fetch_records_after(cursor):
    return [{"id": cursor + 1}]


@task(retries=3)
def process(**context):
    cursor = Variable.get("etl_cursor", default_var=0)
    for record in fetch_records_after(cursor):
        cursor = record["id"]
    Variable.set("etl_cursor", cursor)


@task
def page_through():
    token = V.get(key="page_token", default=None)
    models.Variable.set(key="page_token", value=token)


def load_orders():
    offset = int(Variable.get(CURSOR_KEY, default_var=0))
    Variable.set(CURSOR_KEY, offset + 100)


class SubmitToCluster(BaseOperator):
    def execute(self, context):
        driver_id = self.hook.submit()
        ModelVariable.set("spark_driver_id", driver_id)
        return driver_id


@dag(schedule=None)
def factory_dag():
    for table in ("a", "b"):

        @task(task_id=f"load_{table}")
        def load(table=table):
            Variable.set(f"{table}_checkpoint", 1)

        load()

    PythonOperator(task_id="load_orders", python_callable=load_orders)


factory_dag()
