"""A Redis primary, its replica and three Sentinels on free local ports, for the tests of the Sentinel path
(``redis+sentinel://`` URLs, services/common/redis_url.py)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import redis
from procutil import free_port, wait_until

MASTER = "pulvezar"


class SentinelRedis:
    """``primary`` and ``replica`` (redis-server processes) and three sentinels watching them (quorum 2,
    a primary not answering for ``down_ms`` is failed over: long enough that a loaded machine, e.g. CI with
    the cluster drill beside it, does not fail over a live primary)."""

    def __init__(self, binary: str, folder: Path, down_ms: int = 3000) -> None:
        self.binary, self.folder = binary, folder
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.ports = {name: free_port() for name in ("primary", "replica", "s1", "s2", "s3")}
        try:
            self._server("primary")
            self._server("replica", "--replicaof", "127.0.0.1", str(self.ports["primary"]))
            for name in ("s1", "s2", "s3"):
                conf = folder / f"{name}.conf"
                conf.write_text(
                    f"port {self.ports[name]}\nbind 127.0.0.1\ndir {folder}\n"
                    f"sentinel monitor {MASTER} 127.0.0.1 {self.ports['primary']} 2\n"
                    f"sentinel down-after-milliseconds {MASTER} {down_ms}\n"
                    f"sentinel failover-timeout {MASTER} 5000\n"
                )
                self.procs[name] = subprocess.Popen(
                    [binary, str(conf), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
            replica = redis.Redis(port=self.ports["replica"])
            wait_until(
                lambda: replica.info("replication").get("master_link_status") == "up", 20, "the replica"
            )
            wait_until(lambda: self._sentinels_ready(), 20, "the sentinels to see the replica")
        except BaseException:
            self.close()
            raise

    def _server(self, name: str, *extra: str) -> None:
        port = self.ports[name]
        where = ["--dir", str(self.folder), "--dbfilename", f"{name}.rdb"]
        self.procs[name] = subprocess.Popen(
            [self.binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", *where, *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=port)

        def up() -> bool:
            try:
                return bool(client.ping())
            except redis.exceptions.ConnectionError:
                return False

        wait_until(up, 10, f"redis {name}")

    def _sentinels_ready(self) -> bool:
        for name in ("s1", "s2", "s3"):
            try:
                s = redis.Redis(port=self.ports[name])
                if not s.sentinel_slaves(MASTER) or len(s.sentinel_sentinels(MASTER)) < 2:
                    return False
            except redis.exceptions.ConnectionError:
                return False
        return True

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{self.ports[n]}" for n in ("s1", "s2", "s3"))
        return f"redis+sentinel://{hosts}/{MASTER}/0"

    def primary_port(self) -> int:
        """The port of the primary the sentinels name now."""
        _host, port = redis.Redis(port=self.ports["s1"]).sentinel_get_master_addr_by_name(MASTER)
        return int(port)

    def failovers(self) -> int:
        """How many failovers the sentinels have made (the primary's configuration epoch)."""
        return int(redis.Redis(port=self.ports["s1"]).sentinel_master(MASTER)["config-epoch"])

    def roles(self) -> dict[str, str]:
        """``primary``/``replica`` -> the role each server reports now (or why it did not answer)."""
        out = {}
        for name in ("primary", "replica"):
            try:
                out[name] = str(
                    redis.Redis(port=self.ports[name], socket_timeout=2).info("replication")["role"]
                )
            except redis.exceptions.RedisError as e:
                out[name] = repr(e)
        return out

    def kill_primary(self) -> float:
        """SIGKILL the primary; the time it took the sentinels to promote the replica (seconds)."""
        old = self.primary_port()
        t0 = time.monotonic()
        self.procs["primary"].kill()
        self.procs["primary"].wait(10)
        wait_until(lambda: self.primary_port() != old, 30, "the sentinels to fail over", every=0.05)
        return time.monotonic() - t0

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
