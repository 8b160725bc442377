"""Child processes and throwaway servers for the tools (tools/bench, tools/cluster): every child
in its own session so that one signal reaches all of it, each stopped on exit; PostgreSQL and Redis
servers of the tool's own in temporary directories on free loopback ports, never the system's.

Messages name the tool that runs (its script name), e.g. "bench: initdb: ...".
"""

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOST = "127.0.0.1"
POSTGRES_VERSIONS = Path("/usr/lib/postgresql")  # Debian keeps each major version's binaries apart
POSTGRES_ROLE = "callgate"  # the throwaway server's superuser, trusted on loopback
POSTGRES_USER, POSTGRES_GROUP = "nobody", "nogroup"  # who runs it when the tool runs as root
REDIS_SERVER = Path("/usr/bin/redis-server")
LISTEN = re.compile(r"listening on (?:ws://)?(?P<host>[^\s:/]+):(?P<port>\d+)")

started: list[subprocess.Popen] = []  # every child still to stop


class StepFailed(Exception):
    """A step failed; the message says which and why."""


def tool() -> str:
    """The running tool's name, for its messages."""
    return Path(sys.argv[0]).name or "tool"


# ------------------------------------------------------------------ processes


def spawn(argv: list[str], log: Path, **kwargs) -> subprocess.Popen:
    """Starts a child with stdout and stderr in `log`, in its own session so stop() reaches all of it."""
    with log.open("ab") as f:
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, **kwargs)
    started.append(proc)
    return proc


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, grace: float = 10.0) -> None:
    """Signals the child's process group, then kills it if it has not gone after `grace` seconds."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass
    if proc in started:
        started.remove(proc)


def stop_all() -> None:
    for proc in list(reversed(started)):
        stop(proc, grace=5.0)


def on_signal(signum, _frame):
    raise KeyboardInterrupt if signum == signal.SIGINT else SystemExit(128 + signum)


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def run(argv: list[str], log: Path, timeout: float, what: str, **kwargs) -> None:
    """Runs a child to completion; StepFailed (with the log's tail) if it fails or overruns."""
    print(f"{tool()}: {what}: {' '.join(argv)}", flush=True)
    proc = spawn(argv, log, **kwargs)
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(proc)
        raise StepFailed(f"{what} took more than {timeout:.0f} s; log {log}:\n{tail(log)}") from None
    started.remove(proc)
    if code != 0:
        raise StepFailed(f"{what} failed (exit {code}); log {log}:\n{tail(log)}")



def listen_port(text: str) -> int | None:
    """The port of the first `listening on HOST:PORT` (CallGate: `... on ws://HOST:PORT/ws`)."""
    match = LISTEN.search(text)
    return int(match["port"]) if match else None



def start_server(name: str, argv: list[str], log: Path) -> tuple[subprocess.Popen, int]:
    """Starts a server and waits (30 s at most) for its listen line; returns it and its port.
    `spawn` appends to `log` (a restarted node keeps one log), so only what this server wrote
    counts: an earlier run's listen line would name a port nobody listens on now."""
    offset = log.stat().st_size if log.exists() else 0
    proc = spawn(argv, log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with log.open("rb") as f:
            f.seek(offset)
            port = listen_port(f.read().decode(errors="replace"))
        if port:
            return proc, port
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    stop(proc)
    raise StepFailed(f"{name} did not print its listen line; log {log}:\n{tail(log)}")



def free_port() -> int:
    """A loopback port nobody listens on now (for a server that cannot be given port 0)."""
    return free_ports(1)


def free_ports(count: int) -> int:
    """The first of `count` consecutive loopback ports nobody listens on now, below the kernel's
    ephemeral range: a port from that range can be taken by any outgoing connection (a node's own
    connection to Redis or PostgreSQL) between this check and the server's bind."""
    low = ephemeral_low()
    for _ in range(200):
        first = random.randrange(10_000, low - count)
        if all(bindable(first + offset) for offset in range(count)):
            return first
    raise StepFailed(f"no run of {count} free loopback ports between 10000 and {low}")


def ephemeral_low() -> int:
    """The lowest port the kernel hands out to outgoing connections and binds to port 0."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return max(low, 10_100)


def bindable(port: int) -> bool:
    """Whether a loopback listener could bind `port` now."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
        return True


def as_server_user(argv: list[str], root: bool) -> list[str]:
    """`argv` run as nobody when the bench runs as root, since PostgreSQL refuses root; setpriv
    executes it in place, so the child's pid is the program's own."""
    if not root:
        return argv
    return ["setpriv", f"--reuid={POSTGRES_USER}", f"--regid={POSTGRES_GROUP}", "--clear-groups"] + argv


class ThrowawayPostgres:
    """The bench's own PostgreSQL server, made like the Swift tests' (Tests/TestSupport/
    ThrowawayPostgres.swift): initdb into a temporary directory, postgres on a free loopback port,
    trust authentication for the `callgate` role, run as nobody under root. Unlike the tests' it
    keeps fsync, synchronous_commit and full_page_writes on, the production defaults: a benchmark
    should pay for each commit's WAL flush as production does."""

    def __init__(self, out: Path):
        """Initializes a data directory and starts the server (output in out/postgres.log);
        StepFailed when PostgreSQL is not installed or does not accept connections within 30 s."""
        versions = sorted(int(d.name) for d in POSTGRES_VERSIONS.glob("*") if d.name.isdigit())
        if not versions:
            raise StepFailed(f"PostgreSQL is not installed (no {POSTGRES_VERSIONS}/<version>/bin): run make deps")
        self.bin = POSTGRES_VERSIONS / str(versions[-1]) / "bin"
        self.directory = Path(tempfile.mkdtemp(prefix="callgate-bench-pg-"))  # mode 0700
        self.port = free_port()
        self.log = out / "postgres.log"
        self.postmaster: subprocess.Popen | None = None
        root = os.geteuid() == 0
        data = str(self.directory / "data")
        try:
            if root:
                shutil.chown(self.directory, POSTGRES_USER, POSTGRES_GROUP)
            run(as_server_user([str(self.bin / "initdb"), "-D", data, "-U", POSTGRES_ROLE, "-A", "trust", "-E", "UTF8",
                                "--locale=C.UTF-8", "--no-instructions"], root),
                self.log, 300, "initdb", cwd=self.directory)
            self.postmaster_argv = as_server_user([
                str(self.bin / "postgres"), "-D", data, "-p", str(self.port), "-k", str(self.directory),
                "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=100", "-c", "fsync=on",
                "-c", "synchronous_commit=on", "-c", "full_page_writes=on"], root)
            self.start()
        except BaseException:
            self.shut_down()
            raise
        print(f"{tool()}: PostgreSQL on {HOST}:{self.port} (data in {self.directory})", flush=True)

    def start(self) -> None:
        """Starts the postmaster on its data directory and port and waits until it accepts connections."""
        self.postmaster = spawn(self.postmaster_argv, self.log, cwd=self.directory)
        self.wait_until_ready()

    def restart(self) -> None:
        """A fast shutdown (sessions ended, a checkpoint written), then the same server started again."""
        self.stop_postmaster()
        self.start()

    def set_read_only(self, read_only: bool) -> None:
        """Makes every new transaction read-only, or writable again, as a failover to a standby
        does: `default_transaction_read_only` set with ALTER SYSTEM and the configuration reloaded,
        so that open sessions take it too."""
        value = "on" if read_only else "off"
        for query in (f"ALTER SYSTEM SET default_transaction_read_only = {value}", "SELECT pg_reload_conf()"):
            done = subprocess.run([str(self.bin / "psql"), "-h", HOST, "-p", str(self.port), "-U", POSTGRES_ROLE,
                                   "-X", "-q", "-d", "postgres", "-c", query], capture_output=True, text=True,
                                  timeout=60, env={**os.environ, "PGOPTIONS": "-c default_transaction_read_only=off"})
            if done.returncode != 0:
                raise StepFailed(f"psql {query!r} failed (exit {done.returncode}): {done.stderr.strip()}")

    def stop_postmaster(self) -> None:
        """Fast shutdown (SIGINT to the postmaster alone: it ends its sessions and writes a checkpoint)."""
        if self.postmaster is not None:
            if self.postmaster.poll() is None:
                os.kill(self.postmaster.pid, signal.SIGINT)
                try:
                    self.postmaster.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    pass
            stop(self.postmaster)  # off `started`; its whole group killed if it is still up

    def wait_until_ready(self) -> None:
        """Polls pg_isready until the server accepts connections; StepFailed if it exits or 30 s pass."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.postmaster.poll() is None:
            ready = subprocess.run([str(self.bin / "pg_isready"), "-q", "-h", HOST, "-p", str(self.port)], timeout=10)
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        why = "did not accept connections within 30 s" if self.postmaster.poll() is None else (
            f"exited (status {self.postmaster.returncode})")
        raise StepFailed(f"PostgreSQL {why}; log {self.log}:\n{tail(self.log)}")

    def client(self, program: str, *arguments: str) -> str:
        """Runs one of the server's client programs (createdb, psql) against it; its output."""
        done = subprocess.run([str(self.bin / program), "-h", HOST, "-p", str(self.port), "-U", POSTGRES_ROLE,
                               *arguments], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise StepFailed(f"{program} {' '.join(arguments)} failed (exit {done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def create_database(self, name: str) -> str:
        """Creates an empty database and returns the address CallGate's --database takes."""
        self.client("createdb", name)
        return f"postgres://{POSTGRES_ROLE}@{HOST}:{self.port}/{name}?sslmode=disable"

    def settings(self) -> dict[str, str]:
        """The server's version and the settings that decide what a commit costs, for meta.json."""
        names = ("server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_sync_method",
                 "shared_buffers")
        query = ("SELECT name, current_setting(name) FROM pg_settings WHERE name IN ("
                 + ", ".join(f"'{n}'" for n in names) + ") ORDER BY name")
        output = self.client("psql", "-X", "-A", "-t", "-d", "postgres", "-c", query)
        return dict(line.split("|", 1) for line in output.splitlines() if "|" in line)

    def shut_down(self) -> None:
        """Fast shutdown, then the temporary directory is removed."""
        self.stop_postmaster()
        shutil.rmtree(self.directory, ignore_errors=True)




class ThrowawayRedis:
    """The tool's own Redis: redis-server on a free loopback port, its files in a temporary
    directory, no persistence (a restart comes back empty), as Tests/TestSupport/ThrowawayRedis.swift."""

    def __init__(self, out: Path):
        """Starts the server (output in out/redis.log); StepFailed when redis-server is not
        installed or does not answer within 10 s."""
        if not REDIS_SERVER.exists():
            raise StepFailed(f"{REDIS_SERVER} is missing: run make deps")
        self.directory = Path(tempfile.mkdtemp(prefix="callgate-redis-"))
        self.port = free_port()
        self.log = out / "redis.log"
        self.server = spawn([str(REDIS_SERVER), "--port", str(self.port), "--bind", HOST, "--dir", str(self.directory),
                             "--save", "", "--appendonly", "no", "--protected-mode", "no"], self.log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.server.poll() is None:
            if self.ping():
                print(f"{tool()}: Redis on {HOST}:{self.port}", flush=True)
                return
            time.sleep(0.05)
        self.shut_down()
        raise StepFailed(f"Redis did not answer within 10 s; log {self.log}:\n{tail(self.log)}")

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}"

    def ping(self) -> bool:
        """Whether the server answers PING (a raw RESP exchange: no client library needed)."""
        try:
            with socket.create_connection((HOST, self.port), timeout=1) as connection:
                connection.sendall(b"*1\r\n$4\r\nPING\r\n")
                return connection.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def shut_down(self) -> None:
        """Stops the server and removes its directory."""
        stop(self.server)
        shutil.rmtree(self.directory, ignore_errors=True)
