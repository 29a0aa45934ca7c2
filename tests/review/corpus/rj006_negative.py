"""RJ006 near misses: deferrable with waiting, or flags that are not literals."""

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG

WAIT = False

with DAG(dag_id="deferred_ok", schedule=None):
    DatabricksSubmitRunOperator(task_id="a", tasks=[], deferrable=True, wait_for_termination=True)
    DatabricksSubmitRunOperator(task_id="b", tasks=[], deferrable=True)
    DatabricksSubmitRunOperator(task_id="c", tasks=[], deferrable=False, wait_for_termination=False)
    DatabricksSubmitRunOperator(task_id="d", tasks=[], deferrable=True, wait_for_termination=WAIT)
