"""The nemesis of the fault-injection harness: one fault at a time, at random, each healed before
the next. The faults are what an operator's network, Redis, PostgreSQL and machines do:

- `redis-cut`: one node's Redis links killed and its user refused (`CLIENT KILL` + `ACL SETUSER
  off`) for 0.3 to 3 s: a blip or a partition of that node alone.
- `redis-restart`: Redis killed and started again empty.
- `freeze`: one node stopped (SIGSTOP) for 4 to 6 s, past its 3 s lease, then continued.
- `kill`: one node killed (SIGKILL) and started again 0 to 5 s later under the same id.
- `drain`: one node stopped as a deploy does (SIGTERM: its sockets closed with 1012 over 2 s, its
  calls handed on) and started again 0 to 3 s after it exited.
- `pg-restart`: PostgreSQL shut down fast and started again.
- `pg-read-only`: PostgreSQL refusing every write for 1 to 4 s, as after a failover to a standby.
"""

from __future__ import annotations

import random
import threading
import time

from throwaway import StepFailed

FAULTS = ("redis-cut", "redis-restart", "freeze", "kill", "drain", "pg-restart", "pg-read-only")


class Nemesis(threading.Thread):
    """Injects `faults` at random into `world` until stopped; every fault is recorded in `journal`."""

    def __init__(self, world, journal, seed: int, faults=FAULTS):
        super().__init__(name="nemesis", daemon=True)
        self.world, self.journal = world, journal
        self.rng = random.Random(seed)
        self.faults = list(faults)
        self.stopping = threading.Event()
        self.injected: dict[str, int] = {fault: 0 for fault in self.faults}
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stopping.wait(self.rng.uniform(1.0, 3.0)):
            fault = self.rng.choice(self.faults)
            node = self.rng.choice(self.world.nodes)
            started = time.time()
            try:
                target = self.inject(fault, node)
            except (StepFailed, OSError) as error:
                self.errors.append(f"{fault}: {error}")
                target = node.id
            self.injected[fault] += 1
            self.journal.add(kind="fault", fault=fault, target=target, started=started)

    def inject(self, fault: str, node) -> str:
        """Injects one fault and heals it; returns what it hit."""
        world = self.world
        if fault == "redis-cut":
            world.redis.cut(node.id)
            time.sleep(self.rng.uniform(0.3, 3.0))
            world.redis.mend(node.id)
            return node.id
        if fault == "redis-restart":
            world.redis.restart_empty()
            return "redis"
        if fault == "freeze":
            node.freeze()
            time.sleep(self.rng.uniform(4.0, 6.0))
            node.thaw()
            return node.id
        if fault == "kill":
            node.kill()
            time.sleep(self.rng.uniform(0.0, 5.0))
            node.start()
            return node.id
        if fault == "drain":
            node.drain()
            time.sleep(self.rng.uniform(0.0, 3.0))
            node.start()
            return node.id
        if fault == "pg-restart":
            world.postgres.restart()
            return "postgres"
        if fault == "pg-read-only":
            world.postgres.set_read_only(True)
            time.sleep(self.rng.uniform(1.0, 4.0))
            world.postgres.set_read_only(False)
            return "postgres"
        raise ValueError(fault)

    def heal(self) -> None:
        """Stops injecting and undoes whatever is still broken: every node running and ready."""
        self.stopping.set()
        self.join()
        world = self.world
        if world.postgres.postmaster is None or world.postgres.postmaster.poll() is not None:
            world.postgres.start()
        world.postgres.set_read_only(False)
        if world.redis.server.poll() is not None:
            world.redis.start()
        for node in world.nodes:
            world.redis.mend(node.id)
            if node.frozen:
                node.thaw()
            if not node.running:
                node.start()
        for node in world.nodes:
            node.wait_ready(90)
