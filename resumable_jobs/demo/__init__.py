"""The crash-recovery demo and the embedded Airflow it (and the end-to-end tests) run on."""
