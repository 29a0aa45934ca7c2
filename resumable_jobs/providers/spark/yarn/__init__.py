"""Spark on YARN: submission through ``spark-submit``, a tag with the token, the ResourceManager REST API.

Nothing is imported here, so that loading the operator (or a trigger by its class path) loads
only what it uses.
"""
