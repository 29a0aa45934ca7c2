"""Loaded by Python at start-up when this directory is on PYTHONPATH (the crash suite puts it there).

Routes ``*.snowflakecomputing.com`` to the Snowflake stand-in named by ``RJ_SNOWFLAKE_SQL_API_URL``
(:mod:`resumable_jobs.local.standins.snowflake_route`); does nothing when the variable is unset.
"""

import os

if os.environ.get("RJ_SNOWFLAKE_SQL_API_URL"):
    from resumable_jobs.local.standins.snowflake_route import install_from_env

    install_from_env()
