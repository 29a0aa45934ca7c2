"""The private PostgreSQL and Redis servers of the CeleryExecutor topology start, answer and stop.

They run on free 127.0.0.1 ports from temporary directories (PostgreSQL as the ``postgres``
account when this process is root); stopping them must leave neither a process nor the directory.
"""

from __future__ import annotations

import shutil
import socket

import pytest

from resumable_jobs.local.processes import alive


def _postgres_installed() -> bool:
    from resumable_jobs.local.postgres import PostgresNotFoundError, find_server_bin

    try:
        find_server_bin()
    except PostgresNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _postgres_installed(), reason="PostgreSQL server binaries are not installed")
def test_local_postgres_serves_a_database_and_stops_without_a_trace():
    pytest.importorskip("psycopg2")
    from resumable_jobs.local.postgres import LocalPostgres

    with LocalPostgres(database="rjcheck") as postgres:
        pid, base_dir = postgres._process.pid, postgres.base_dir
        connection = postgres._connect("rjcheck")
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_database(), inet_server_addr()::text")
            assert cursor.fetchone() == ("rjcheck", "127.0.0.1/32")
        connection.close()
        assert postgres.url.startswith(f"postgresql+psycopg2://{postgres.user}@127.0.0.1:{postgres.port}/")
    assert not alive(pid)
    assert not base_dir.exists()


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_local_redis_answers_ping_and_stops_without_a_trace():
    from resumable_jobs.local.redis_server import LocalRedis

    with LocalRedis() as redis:
        pid, base_dir = redis._process.pid, redis.base_dir
        with socket.create_connection(("127.0.0.1", redis.port), timeout=5) as sock:
            sock.sendall(b"SET rj ok\r\nGET rj\r\n")
            answer = b""
            while answer.count(b"\r\n") < 3:  # +OK, then the bulk string's length and value
                answer += sock.recv(100)
            assert answer == b"+OK\r\n$2\r\nok\r\n"
    assert not alive(pid)
    assert not base_dir.exists()
