"""A pool process forked while the scheduler tick runs in the worker's main process.

The tick sends chunks (``send_task``), which takes kombu's and functools' ``cached_property`` locks; a fork
in the middle of it gave the child those locks held by a thread it does not have, and the child hung the
first time it sent a chunk itself (an intermittent CI failure, found with the workers' SIGUSR2 stacks).
A fork now waits for the tick (:data:`services.rollout.celery_app._TICKING`).
"""

from __future__ import annotations

import os
import threading
import time

from services.rollout import celery_app


def test_a_fork_waits_for_the_running_tick_and_the_child_starts_with_the_lock_free() -> None:
    ticking, finished = threading.Event(), threading.Event()

    def tick() -> None:
        with celery_app._TICKING:
            ticking.set()
            time.sleep(0.3)
            finished.set()

    thread = threading.Thread(target=tick)
    thread.start()
    ticking.wait(5)
    pid = os.fork()
    if pid == 0:  # the child: the lock must be free, or its first tick-like call would hang
        free = celery_app._TICKING.acquire(timeout=2)
        os._exit(0 if free else 1)
    assert finished.is_set(), "the fork happened in the middle of the tick"
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child inherited the tick's lock held"
    thread.join()
    assert celery_app._TICKING.acquire(timeout=2)  # and the parent's lock was released after the fork
    celery_app._TICKING.release()
