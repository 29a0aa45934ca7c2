"""Fails: writes a reason to stderr and exits with code 3 (the driver ends FAILED)."""

import sys

print("fail_app: refusing to run on purpose", file=sys.stderr, flush=True)
sys.exit(3)
