"""Spark on Kubernetes: submission through ``spark-submit``, a driver pod label with the token, the API.

Nothing is imported here: the ``cncf.kubernetes`` provider and the ``kubernetes`` client are
imported by :mod:`.pods` when a call is made, never when a DAG is parsed.
"""
