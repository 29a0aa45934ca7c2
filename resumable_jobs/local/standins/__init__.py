"""HTTP stand-ins for the managed services that cannot run locally: Databricks, BigQuery, Snowflake,
dbt Cloud.

What it is for: letting the real upstream hooks, client libraries and triggers talk to something
that answers like the service where crash safety depends on it (deduplication by token or job id,
404 for unknown jobs, cancellation, terminal states), in unit tests and in a real Airflow
deployment alike.

How it works: each service is a transport-agnostic model answering ``handle(method, path, body)``
(:mod:`.databricks`, :mod:`.bigquery`, :mod:`.dbt_cloud`, :mod:`.snowflake` - the last one reads
query parameters and headers too, through ``handle_request``). Unit tests route requests to a model through
requests-mock; the production crash suite runs a model in a process of its own behind a real
HTTP server (:mod:`.server`, started and inspected through :class:`.process.StandinProcess`), so
every Airflow process - worker, triggerer - reaches the same jobs over 127.0.0.1.

What it does not do: nothing here is imported by an operator module; the stand-ins never reach
the real services.
"""
