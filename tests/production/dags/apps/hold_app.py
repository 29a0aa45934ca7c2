"""A Spark driver that runs until the crash drill releases it (or a cap passes), then reports.

The drill decides how long a job runs by creating the release file: long enough for a worker to
be killed and the retry to reconnect, not a second more. The cap only keeps a forgotten driver
from running forever.
"""

import os
import sys
import time

release_file, cap = sys.argv[1], float(sys.argv[2])
started = time.monotonic()
while not os.path.exists(release_file) and time.monotonic() - started < cap:
    time.sleep(0.2)
released = os.path.exists(release_file)
print(f"held for {time.monotonic() - started:.1f}s; released={released}", flush=True)
sys.exit(0 if released else 3)
