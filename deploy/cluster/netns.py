"""Hosts on one machine: Linux network namespaces on a bridge of their own (needs root and iproute2).

A :class:`Cluster` makes a bridge and, per node, a namespace with a veth pair whose host end is on the
bridge and whose other end is the node's ``eth0`` with its address; the bridge itself has no address, so
the nodes reach each other and nothing else (no route leaves the bridge).  Every process runs in its
node's namespace with its own UTS namespace (its host name is the node's), working directory and
``TMPDIR`` under the drill's folder.  :meth:`Cluster.destroy` kills every process in the namespaces,
deletes them and the bridge, and is safe to call twice or after a half-made cluster; :func:`sweep`
removes what an earlier run with the same prefix left behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "pvzd"  # of every namespace, interface and the bridge (interface names have 15 characters at most)
SUBNET = "10.231.77"  # a /24 that only the drill's bridge carries


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def why_not() -> str | None:
    """Why namespaces cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "the drill makes network namespaces and a bridge: it needs root"
    for tool in ("ip", "unshare", "runuser"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (Debian: iproute2, util-linux)"
    probe = f"{PREFIX}-probe"
    made = run("ip", "netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    run("ip", "netns", "del", probe, check=False)
    return None


def namespaces() -> list[str]:
    out = run("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(f"{PREFIX}-")]


def pids_in(ns: str) -> list[int]:
    out = run("ip", "netns", "pids", ns, check=False).stdout
    return [int(p) for p in out.split()]


def kill_namespace(ns: str) -> int:
    """SIGKILL every process in ``ns`` (a host lost at once); how many."""
    pids = pids_in(ns)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)


def sweep() -> list[str]:
    """Remove the namespaces, processes and bridge of an earlier run; what was removed."""
    removed = []
    for ns in namespaces():
        kill_namespace(ns)
        run("ip", "netns", "del", ns, check=False)
        removed.append(ns)
    links = run("ip", "-o", "link", "show", check=False).stdout
    for line in links.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith(f"{PREFIX}-"):
            run("ip", "link", "del", name, check=False)
            removed.append(name)
    return removed


@dataclass
class Node:
    """One host: its namespace, address and folder, and the processes started on it."""

    name: str
    address: str
    folder: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def ns(self) -> str:
        return f"{PREFIX}-{self.name}"

    def start(
        self,
        label: str,
        cmd: Sequence[str],
        env: Mapping[str, str],
        *,
        user: str | None = None,
        cwd: Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``cmd`` on this node (its namespace and host name; as ``user`` when given), its output
        in ``<folder>/<label>.log``."""
        tmp = self.folder / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        if user is not None:
            shutil.chown(tmp, user)
        prefix = ["ip", "netns", "exec", self.ns, "unshare", "--uts", "--"]
        inner = ["sh", "-c", f'hostname {self.name} && exec "$@"', "node"]
        as_user = ["runuser", "-u", user, "--"] if user else []
        log = (self.folder / f"{label}.log").open("ab")
        proc = subprocess.Popen(
            [*prefix, *inner, *as_user, *cmd],
            env={**env, "TMPDIR": str(tmp), "HOME": str(self.folder)},
            cwd=str(cwd or self.folder),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.procs[label] = proc
        return proc

    def stop(self, label: str, sig: int = signal.SIGTERM, timeout: float = 30) -> int | None:
        """Signal one process (its whole group) and wait for it; its exit code."""
        proc = self.procs.pop(label)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        return proc.returncode

    def kill_all(self) -> int:
        """Every process of the node killed at once (the host is gone); how many."""
        n = kill_namespace(self.ns)
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        self.procs.clear()
        return n


class Cluster:
    """The bridge and the nodes; :meth:`add` makes a node, :meth:`destroy` removes everything."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.bridge = f"{PREFIX}-br"
        self.nodes: dict[str, Node] = {}
        run("ip", "link", "add", self.bridge, "type", "bridge")
        run("ip", "link", "set", self.bridge, "up")

    def add(self, name: str, host: int) -> Node:
        node = Node(name, f"{SUBNET}.{host}", self.folder / name)
        node.folder.mkdir(parents=True, exist_ok=True)
        ns, veth = node.ns, f"{PREFIX}-{name}-h"
        run("ip", "netns", "add", ns)
        self.nodes[name] = node
        run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
        run("ip", "link", "set", veth, "master", self.bridge, "up")
        run("ip", "-n", ns, "addr", "add", f"{node.address}/24", "dev", "eth0")
        run("ip", "-n", ns, "link", "set", "eth0", "up")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        return node

    def destroy(self) -> None:
        for node in self.nodes.values():
            node.kill_all()
        deadline = time.monotonic() + 10
        for node in self.nodes.values():
            while pids_in(node.ns) and time.monotonic() < deadline:
                kill_namespace(node.ns)
                time.sleep(0.1)
            run("ip", "netns", "del", node.ns, check=False)
        self.nodes.clear()
        sweep()
