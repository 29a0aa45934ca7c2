"""Runs for a while: sleeps the number of seconds given as the first argument, then succeeds.

Long enough for a test to crash the Airflow side mid-poll, reconnect, or kill the driver.
"""

import sys
import time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 25.0
print(f"sleep_app: sleeping {seconds}s", flush=True)
time.sleep(seconds)
print("sleep_app: done", flush=True)
