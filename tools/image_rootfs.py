"""The Dockerfile's runtime stage made without Docker: a minimal Debian root filesystem built with
Debian's own debootstrap (`--variant=minbase`, the base debian:*-slim images are made from),
then the stage's own instructions done in it in order: each RUN in a chroot (so its apt-get
installs exactly the packages it names), each COPY from the build stage's output, USER, WORKDIR
and ENV read as the container runtime reads them. Commands run in the root filesystem through
`unshare --mount` + `chroot`, with /proc and /dev/pts mounted inside that mount namespace only:
the mounts go away with the process, whatever happens to the test.

What the stage's RUNs before its first COPY make is cached, keyed on their text, the suite and the
mirror, under $CALLGATE_ROOTFS_CACHE (default /var/cache/callgate-rootfs/<key>): a changed package
list is a new key. Each use works on a copy, since the gateway writes into its volume.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from dockerfile import Instruction, Stage, copy_arguments

MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # debian images' ENV PATH
CACHE = Path(os.environ.get("CALLGATE_ROOTFS_CACHE", "/var/cache/callgate-rootfs"))


class RootfsFailed(Exception):
    """A step of building or using the root filesystem failed; the message says which."""


def suite(stage: Stage) -> str:
    """The Debian suite of a stage built FROM debian:<suite> or debian:<suite>-slim."""
    repository, _, tag = stage.image.partition(":")
    if repository not in ("debian", "docker.io/library/debian") or not tag:
        raise RootfsFailed(f"the runtime stage is FROM {stage.image}, not a debian:<suite>-slim image")
    return tag.removesuffix("-slim")


def cached_part(stage: Stage) -> list[Instruction]:
    """The RUNs before the stage's first COPY: what the cached root filesystem holds."""
    found = []
    for instruction in stage.instructions:
        if instruction.keyword == "COPY":
            break
        if instruction.keyword == "RUN":
            found.append(instruction)
    return found


def cache_key(stage: Stage) -> str:
    recipe = "\n".join([suite(stage), MIRROR, SECURITY, "minbase"] + [run.text for run in cached_part(stage)])
    return hashlib.sha256(recipe.encode()).hexdigest()[:16]


def in_rootfs(rootfs: Path, argv: list[str], user: tuple[int, int] | None = None, workdir: str = "/") -> list[str]:
    """The command line that runs `argv` inside `rootfs` (as `user`, uid and gid, when given,
    in `workdir`), resolving argv[0] on the PATH of the environment it is started with."""
    chroot = ([f"--userspec={user[0]}:{user[1]}", f"--groups={user[1]}"] if user else [])
    script = ('mount -t proc proc "$0/proc" && mount -t devpts -o newinstance,ptmxmode=0666 devpts "$0/dev/pts"'
              ' && exec chroot "$@"')
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(rootfs), *chroot,
            str(rootfs), "/usr/bin/env", f"--chdir={workdir}", *argv]


def run_logged(argv: list[str], log: Path, timeout: float, what: str, env: dict[str, str] | None = None,
               cwd: Path | None = None) -> None:
    """Runs `argv` to its end with its output appended to `log`; RootfsFailed, with the log's tail,
    when it fails or overruns `timeout` seconds."""
    with log.open("ab") as out:
        out.write(f"\n$ {' '.join(argv)}\n".encode())
        out.flush()
        try:
            done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                  cwd=cwd, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RootfsFailed(f"{what} took more than {timeout:.0f} s; log {log}") from None
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise RootfsFailed(f"{what} failed (exit {done.returncode}); log {log}:\n{tail}")


def build_env(stage: Stage, upto: Instruction | None = None) -> dict[str, str]:
    """The environment a RUN sees: PATH and HOME as Docker sets them, and the stage's ENVs before `upto`."""
    env = {"PATH": IMAGE_PATH, "HOME": "/root"}
    for instruction in stage.instructions:
        if instruction is upto:
            break
        if instruction.keyword == "ENV":
            env.update(Stage(stage.image, None, [instruction]).env())
    return env


def run_instruction(rootfs: Path, stage: Stage, run: Instruction, log: Path) -> None:
    """A RUN, in shell form (/bin/sh -c, as Docker) or exec form, as root in the root filesystem."""
    argv = run.exec_form() or ["/bin/sh", "-c", run.text]
    run_logged(in_rootfs(rootfs, argv), log, 900, f"RUN {run.text[:60]}...", env=build_env(stage, run))


def image_sources(suite_name: str) -> str:
    """/etc/apt/sources.list.d/debian.sources as the debian images ship it."""
    keyring = "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
    return (f"Types: deb\nURIs: {MIRROR}\nSuites: {suite_name} {suite_name}-updates\nComponents: main\n{keyring}\n\n"
            f"Types: deb\nURIs: {SECURITY}\nSuites: {suite_name}-security\nComponents: main\n{keyring}\n")


def base(stage: Stage, log: Path) -> tuple[Path, float]:
    """The cached root filesystem of the stage's RUNs before its first COPY, built when missing;
    and the seconds building it took (0 when it was cached). Built beside the cache entry and
    renamed into place when complete, so an interrupted build leaves no entry behind."""
    if not shutil.which("debootstrap"):
        raise RootfsFailed("debootstrap is not installed: make deps installs it")
    final = CACHE / cache_key(stage)
    if final.is_dir():
        return final, 0.0
    started = time.monotonic()
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = CACHE / f"{final.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        run_logged(["debootstrap", "--variant=minbase", suite(stage), str(partial), MIRROR], log, 1800, "debootstrap")
        (partial / "etc/apt/sources.list").unlink(missing_ok=True)
        (partial / "etc/apt/sources.list.d/debian.sources").write_text(image_sources(suite(stage)))
        shutil.copy("/etc/resolv.conf", partial / "etc/resolv.conf")  # Docker mounts the host's in RUNs too
        for run in cached_part(stage):
            run_instruction(partial, stage, run, log)
        try:
            partial.rename(final)
        except OSError:  # another run finished the same entry first
            if not final.is_dir():
                raise
            shutil.rmtree(partial)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return final, time.monotonic() - started


def instantiate(stage: Stage, build_stage: Stage, built_root: Path, into: Path, log: Path) -> tuple[Path, float]:
    """A copy of the cached root filesystem at `into`, with the stage's instructions from its
    first COPY on done in it; a COPY --from the build stage takes its file from `built_root`,
    the host folder that stands for the build stage's WORKDIR. Returns the root filesystem and
    the seconds the cached part took to build (0 when cached)."""
    cached, seconds = base(stage, log)
    run_logged(["cp", "-a", "--reflink=auto", str(cached), str(into)], log, 600, "copy of the cached root filesystem")
    shutil.copy("/etc/resolv.conf", into / "etc/resolv.conf")  # as a container runtime mounts it
    first_copy = next((i for i, instruction in enumerate(stage.instructions) if instruction.keyword == "COPY"),
                      len(stage.instructions))
    for instruction in stage.instructions[first_copy:]:
        if instruction.keyword == "RUN":
            run_instruction(into, stage, instruction, log)
        elif instruction.keyword == "COPY":
            copy_in(instruction, build_stage, built_root, into)
    return into, seconds


def copy_in(instruction: Instruction, build_stage: Stage, built_root: Path, rootfs: Path) -> None:
    """A COPY --from=<build stage> of one file, owned by root with its mode kept, as Docker copies it."""
    flags, paths = copy_arguments(instruction)
    if flags.get("from") != build_stage.name or len(paths) != 2:
        raise RootfsFailed(f"COPY {instruction.text}: only one file --from={build_stage.name} is done here")
    source, destination = paths
    workdir = build_stage.workdir().rstrip("/") + "/"
    if not source.startswith(workdir):
        raise RootfsFailed(f"COPY {source}: not under the build stage's WORKDIR {workdir}")
    host_file = built_root / source[len(workdir):]
    target = rootfs / destination.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(host_file.resolve(), target)
    os.chown(target, 0, 0)


def user_ids(rootfs: Path, user: str) -> tuple[int, int]:
    """The uid and gid USER names (`name`, `uid`, `name:group` or `uid:gid`), looked up in the
    root filesystem's /etc/passwd and /etc/group as the container runtime does."""
    name, _, group = user.partition(":")
    passwd = [line.split(":") for line in (rootfs / "etc/passwd").read_text().splitlines() if line]
    groups = [line.split(":") for line in (rootfs / "etc/group").read_text().splitlines() if line]
    entry = next((row for row in passwd if name in (row[0], row[2])), None)
    if entry is None and not name.isdigit():
        raise RootfsFailed(f"USER {user}: no such user in the image")
    uid = int(entry[2]) if entry else int(name)
    if not group:
        return uid, int(entry[3]) if entry else 0
    row = next((row for row in groups if group in (row[0], row[2])), None)
    if row is None and not group.isdigit():
        raise RootfsFailed(f"USER {user}: no such group in the image")
    return uid, int(row[2]) if row else int(group)
