"""Reads a Dockerfile into its stages and instructions, so that tests can do what its lines say
(tools/image_rootfs.py) instead of keeping a copy of them that could drift."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Instruction:
    keyword: str  # upper case: RUN, COPY, ENV, ...
    text: str  # the arguments, continuation lines joined

    def exec_form(self) -> list[str] | None:
        """The arguments as a JSON array (`["callgate", "serve"]`), None in shell form."""
        if not self.text.startswith("["):
            return None
        value = json.loads(self.text)
        assert isinstance(value, list) and all(isinstance(item, str) for item in value), self.text
        return value


@dataclass
class Stage:
    image: str  # FROM's image reference
    name: str | None  # FROM ... AS name
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [instruction for instruction in self.instructions if instruction.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None

    def env(self) -> dict[str, str]:
        """Every ENV of the stage, in order (`KEY=value ...` form)."""
        values: dict[str, str] = {}
        for instruction in self.all("ENV"):
            for word in shlex.split(instruction.text):
                key, equals, value = word.partition("=")
                assert equals, f"ENV {instruction.text!r}: only the KEY=value form is read"
                values[key] = value
        return values

    def workdir(self) -> str:
        """The stage's last WORKDIR (absolute paths only), / when it sets none."""
        last = self.last("WORKDIR")
        return last.text if last else "/"


def parse(path: Path) -> list[Stage]:
    """The stages of the Dockerfile at `path`, each with its instructions in order."""
    stages: list[Stage] = []
    for keyword, text in logical_lines(path.read_text()):
        if keyword == "FROM":
            words = text.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            assert len(words) in (1, 3), f"FROM {text!r}"
            stages.append(Stage(words[0], name))
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append(Instruction(keyword, text))
    return stages


def logical_lines(source: str) -> list[tuple[str, str]]:
    """(keyword, arguments) of each instruction: comments and blank lines dropped, lines ending
    in a backslash joined with the next (comment lines inside a continuation skipped, as Docker does)."""
    found, pending = [], ""
    for raw in source.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        keyword, _, text = whole.partition(" ")
        found.append((keyword.upper(), text.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return found


def copy_arguments(instruction: Instruction) -> tuple[dict[str, str], list[str]]:
    """A COPY's `--flag=value` options and its paths (sources, then the destination)."""
    words = shlex.split(instruction.text)
    flags = dict(word[2:].split("=", 1) for word in words if word.startswith("--"))
    return flags, [word for word in words if not word.startswith("--")]
