"""Fair shares: every chunked job's chunks reach the workers through one scheduler in Redis.

A job's chunks are not all sent to Celery at submission (a queue that is first come, first served
across API keys would make one key's 50 jobs delay another key's first chunk by all of theirs).  The
scheduler keeps them pending per *owner* (an API key's stored owner) and sends a chunk task only when a
worker slot is free, so the Celery queues stay about as deep as the free slots (zero while all slots are
busy).  The next chunk is chosen, in one atomic Lua script:

1. by priority: interactive owners before batch ones (as the two Celery queues always did);
2. across owners, weighted round robin: an owner with ``share`` *w* gets *w* chunks per turn (default 1;
   the gateway sets each key's share from its settings);
3. within an owner, its jobs first come, first served (a key decides its own order by submitting).

So a key that floods the scheduler delays another key's first chunk by at most the time until a slot
frees, about one chunk's time.  Every chunk sent holds a *lease* (a sorted set scored by its expiry on
Redis's clock, never a host's): the pool process running it renews the lease, and releases it when the
chunk ends.  A lease that expires (its worker host was lost, or Redis restarted under a running chunk)
puts the chunk back in front of its job: it runs again within ``lease_s`` seconds, instead of waiting
for Celery's visibility timeout (an hour).  Celery's own redelivery, later, finds the chunk's record and
costs an ``EXISTS`` (chunks are write-once and deterministic).

Capacity is the sum of the slots of the live workers: each worker consuming the chunk queues registers
its pool size every ``tick_s`` seconds (:mod:`services.rollout.celery_app`); a worker not heard of for
``worker_ttl_s`` seconds no longer counts.  Feeding happens at submission, when a chunk ends, and on every
worker's tick (which also notices expired leases).  Two feeders at once may send one chunk too many:
harmless.

Keys (a Redis without cluster mode; the scripts name keys they compute, as a Sentinel or single Redis
allows)::

    sched:job:{id}               hash: owner, prio, task, prefix (JSON args before [id, n]), queue,
                                 cancel (the job's cancel key), next, total, listed
    sched:job:{id}:redo          list of chunk numbers to run before next..total (rehydrated, lost)
    sched:jobs:{prio}:{owner}    list: the owner's jobs with pending chunks, first come first
    sched:rr:{prio}              list: owners with pending work, in turn order (sched:active:{prio}: set)
    sched:share, sched:credit    hashes owner -> share, owner -> chunks left in its current turn
    sched:leases                 sorted set "{id}|{n}" -> expiry (Redis TIME)
    sched:slots, sched:seen      hash node -> slots; sorted set node -> expiry
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: the owner of jobs submitted without one (the library, the platform's own jobs)
NO_OWNER = "-"
PRIORITIES = ("interactive", "batch")

_ENLIST = """
local function enlist(job, jk)
  local owner = redis.call('HGET', jk, 'owner')
  local prio = redis.call('HGET', jk, 'prio')
  if redis.call('HGET', jk, 'listed') ~= '1' then
    redis.call('RPUSH', 'sched:jobs:' .. prio .. ':' .. owner, job)
    redis.call('HSET', jk, 'listed', '1')
  end
  if redis.call('SADD', 'sched:active:' .. prio, owner) == 1 then
    redis.call('RPUSH', 'sched:rr:' .. prio, owner)
  end
end
"""

# ARGV: job, owner, prio, task, prefix, queue, cancel, ttl, mode ('range' start stop | 'list' n...)
_ADD = (
    _ENLIST
    + """
local job = ARGV[1]
local jk = 'sched:job:' .. job
local redo = jk .. ':redo'
if redis.call('EXISTS', jk) == 0 then
  redis.call('HSET', jk, 'owner', ARGV[2], 'prio', ARGV[3], 'task', ARGV[4], 'prefix', ARGV[5],
             'queue', ARGV[6], 'cancel', ARGV[7], 'next', 0, 'total', 0, 'listed', '0')
end
local ttl = tonumber(ARGV[8])
if ARGV[9] == 'range' then
  local first, stop = tonumber(ARGV[10]), tonumber(ARGV[11])
  local nxt = tonumber(redis.call('HGET', jk, 'next'))
  local tot = tonumber(redis.call('HGET', jk, 'total'))
  if nxt == tot then
    redis.call('HSET', jk, 'next', first, 'total', stop)
  elseif tot == first then
    redis.call('HSET', jk, 'total', stop)
  else
    for i = first, stop - 1 do redis.call('RPUSH', redo, i) end
  end
else
  for i = 10, #ARGV do redis.call('RPUSH', redo, ARGV[i]) end
end
redis.call('EXPIRE', jk, ttl)
if redis.call('EXISTS', redo) == 1 then redis.call('EXPIRE', redo, ttl) end
enlist(job, jk)
return 1
"""
)

# ARGV: lease_s, max_back (expired leases handled per call); returns {job, n, task, prefix, queue} or false
_TAKE = (
    _ENLIST
    + """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local lease_s = tonumber(ARGV[1])
-- workers not heard of: their slots no longer count
for _, node in ipairs(redis.call('ZRANGEBYSCORE', 'sched:seen', '-inf', now)) do
  redis.call('ZREM', 'sched:seen', node)
  redis.call('HDEL', 'sched:slots', node)
end
-- expired leases: the chunk goes back in front of its job
for _, m in ipairs(redis.call('ZRANGEBYSCORE', 'sched:leases', '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))) do
  redis.call('ZREM', 'sched:leases', m)
  local bar = string.find(m, '|', 1, true)
  local job, n = string.sub(m, 1, bar - 1), string.sub(m, bar + 1)
  local jk = 'sched:job:' .. job
  if redis.call('EXISTS', jk) == 1 then
    redis.call('LPUSH', jk .. ':redo', n)
    enlist(job, jk)
  end
end
local capacity = 0
for _, v in ipairs(redis.call('HVALS', 'sched:slots')) do capacity = capacity + tonumber(v) end
if redis.call('ZCARD', 'sched:leases') >= capacity then return false end
for _, prio in ipairs({'interactive', 'batch'}) do
  local rr = 'sched:rr:' .. prio
  local owners = redis.call('LLEN', rr)
  for _ = 1, owners do
    local owner = redis.call('LINDEX', rr, 0)
    local ol = 'sched:jobs:' .. prio .. ':' .. owner
    while true do
      local job = redis.call('LINDEX', ol, 0)
      if not job then break end
      local jk = 'sched:job:' .. job
      local n = false
      local cancel = redis.call('HGET', jk, 'cancel')
      if cancel and redis.call('EXISTS', cancel) == 0 then
        n = redis.call('LPOP', jk .. ':redo')
        if not n then
          local nxt = tonumber(redis.call('HGET', jk, 'next'))
          if nxt < tonumber(redis.call('HGET', jk, 'total')) then
            n = tostring(nxt)
            redis.call('HINCRBY', jk, 'next', 1)
          end
        end
      end
      if n then
        local credit = tonumber(redis.call('HGET', 'sched:credit', owner) or '0')
        if credit <= 0 then credit = tonumber(redis.call('HGET', 'sched:share', owner) or '1') end
        credit = credit - 1
        if credit <= 0 then
          redis.call('LMOVE', rr, rr, 'LEFT', 'RIGHT')
          redis.call('HDEL', 'sched:credit', owner)
        else
          redis.call('HSET', 'sched:credit', owner, credit)
        end
        redis.call('ZADD', 'sched:leases', now + lease_s, job .. '|' .. n)
        return {job, n, redis.call('HGET', jk, 'task'), redis.call('HGET', jk, 'prefix'),
                redis.call('HGET', jk, 'queue')}
      end
      -- nothing pending in this job (drained, cancelled or gone): off the owner's list
      redis.call('LPOP', ol)
      if redis.call('EXISTS', jk) == 1 then redis.call('HSET', jk, 'listed', '0') end
    end
    redis.call('LPOP', rr)
    redis.call('SREM', 'sched:active:' .. prio, owner)
    redis.call('HDEL', 'sched:credit', owner)
  end
end
return false
"""
)

# KEYS: none; ARGV: member, lease_s -> 1 when the lease was still held (and is renewed), else 0
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
return redis.call('ZADD', 'sched:leases', 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
"""

# ARGV: node, slots, ttl_s
_REGISTER = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
redis.call('HSET', 'sched:slots', ARGV[1], ARGV[2])
redis.call('ZADD', 'sched:seen', now + tonumber(ARGV[3]), ARGV[1])
return 1
"""


@dataclass(frozen=True)
class Sent:
    """A chunk the scheduler sent: its job, number and task."""

    job_id: str
    n: int
    task: str
    queue: str


def _str(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def lease_member(job_id: str, n: int) -> str:
    return f"{job_id}|{n}"


class FairScheduler:
    """The scheduler on one Redis (``redis.Redis``, decoded or not) and Celery app (sends by name)."""

    def __init__(self, redis_client: Any, app: Any, lease_s: float = 30.0) -> None:
        self.redis = redis_client
        self.app = app
        self.lease_s = lease_s
        self._add = redis_client.register_script(_ADD)
        self._take = redis_client.register_script(_TAKE)
        self._renew = redis_client.register_script(_RENEW)
        self._register = redis_client.register_script(_REGISTER)

    # ---- jobs --------------------------------------------------------------
    def add(
        self,
        job_id: str,
        numbers: Iterable[int],
        *,
        task: str,
        prefix: Sequence[Any] = (),
        queue: str,
        priority: str,
        owner: str | None,
        cancel_key: str,
        ttl_s: int,
    ) -> None:
        """Chunks ``numbers`` of a job become pending (a range is stored as its bounds).  The job's
        owner, priority and task are those of its first ``add``."""
        if priority not in PRIORITIES:
            raise ValueError(f"priority is one of {PRIORITIES}, got {priority!r}")
        head = [job_id, owner or NO_OWNER, priority, task, json.dumps(list(prefix)), queue, cancel_key, ttl_s]
        if isinstance(numbers, range) and numbers.step == 1:
            if len(numbers):
                self._add(args=[*head, "range", numbers.start, numbers.stop])
            return
        todo = [int(n) for n in numbers]
        for i in range(0, len(todo), 5000):  # Lua's unpack has a limit on arguments
            self._add(args=[*head, "list", *todo[i : i + 5000]])

    def knows(self, job_id: str) -> bool:
        """Whether the scheduler holds the job (pending chunks or not)."""
        return bool(self.redis.exists(f"sched:job:{job_id}"))

    def forget(self, job_id: str) -> None:
        """Drop a deleted job's scheduling state (its list entries are dropped when reached)."""
        self.redis.delete(f"sched:job:{job_id}", f"sched:job:{job_id}:redo")

    def pending(self, job_id: str) -> int:
        """Chunks of the job not sent yet."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(f"sched:job:{job_id}", "next", "total")
        pipe.llen(f"sched:job:{job_id}:redo")
        (nxt, tot), redo = pipe.execute()
        return (int(tot) - int(nxt) if nxt is not None else 0) + int(redo)

    def backlog(self) -> dict[str, int]:
        """Chunks pending (not sent yet) per priority, over every owner's listed jobs: what should drive
        autoscaling now that the Celery queues hold only chunks for free slots.  Read in two pipelined
        rounds, not atomically (a gauge)."""
        out = {}
        for prio in PRIORITIES:
            owners = self.redis.lrange(f"sched:rr:{prio}", 0, -1)
            pipe = self.redis.pipeline(transaction=False)
            for owner in owners:
                pipe.lrange(f"sched:jobs:{prio}:{_str(owner)}", 0, -1)
            jobs = [_str(j) for listed in pipe.execute() for j in listed]
            pipe = self.redis.pipeline(transaction=False)
            for job in jobs:
                pipe.hmget(f"sched:job:{job}", "next", "total")
                pipe.llen(f"sched:job:{job}:redo")
            found = pipe.execute()
            total = 0
            for (nxt, tot), redo in zip(found[::2], found[1::2], strict=True):
                total += (int(tot) - int(nxt) if nxt is not None and tot is not None else 0) + int(redo)
            out[prio] = total
        return out

    def set_share(self, owner: str, share: int) -> None:
        """``owner`` gets ``share`` chunks per turn (1 by default)."""
        if share < 1:
            raise ValueError("a share is at least 1")
        self.redis.hset("sched:share", owner, share)

    # ---- sending -----------------------------------------------------------
    def feed(self, limit: int = 1000) -> list[Sent]:
        """Send chunks while slots are free (at most ``limit``); what was sent."""
        sent: list[Sent] = []
        while len(sent) < limit:
            got = self._take(args=[self.lease_s, 100])
            if not got:
                break
            job, n, task, prefix, queue = (x.decode() if isinstance(x, bytes) else x for x in got)
            # should sending fail (the broker is down), the lease expires and puts the chunk back
            self.app.send_task(task, args=[*json.loads(prefix), job, int(n)], queue=queue)
            sent.append(Sent(job, int(n), task, queue))
        return sent

    # ---- the workers' side -------------------------------------------------
    def renew(self, job_id: str, n: int) -> bool:
        """Extend a running chunk's lease; False when it had expired (the chunk may run twice)."""
        return bool(self._renew(args=[lease_member(job_id, n), self.lease_s]))

    def release(self, job_id: str, n: int) -> None:
        """A chunk ended (done, duplicate, cancelled or failed): its slot is free."""
        self.redis.zrem("sched:leases", lease_member(job_id, n))

    def register(self, node: str, slots: int, ttl_s: float) -> None:
        """A worker node has ``slots`` pool processes for chunks, for the next ``ttl_s`` seconds."""
        self._register(args=[node, slots, ttl_s])

    def unregister(self, node: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hdel("sched:slots", node)
        pipe.zrem("sched:seen", node)
        pipe.execute()

    def capacity(self) -> int:
        """The slots of the workers registered now (expired ones are dropped at the next feed)."""
        return sum(int(v) for v in self.redis.hvals("sched:slots"))

    def leases(self) -> int:
        """Chunks sent and not ended (queued in Celery or running)."""
        return int(self.redis.zcard("sched:leases"))
