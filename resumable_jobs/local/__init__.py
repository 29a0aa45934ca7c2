"""Local stand-ins and harnesses: what the demo and the tests run on, never what a DAG imports.

Provider packages (:mod:`resumable_jobs.providers`) hold only what runs in production. The
throwaway services that let a laptop or CI play the external system and Airflow itself live here:
a Spark standalone cluster (:mod:`.spark_cluster`), a moto_server for AWS Batch
(:mod:`.moto_server`), an embedded Airflow (:mod:`.embedded_airflow`) and the process helpers
that make sure nothing they start outlives them (:mod:`.processes`). Nothing here is imported by
an operator module.
"""
