#!/usr/bin/env python3
"""Check CallGate's wire contract in proto/, or check real frames against it.

Usage:
  python3 tools/proto_check.py                 check the contract itself
  python3 tools/proto_check.py --frames FILE   check frames (JSON lines) against the schemas
  python3 tools/proto_check.py --frames -      same, reading the lines from stdin

Without arguments it checks that:
  * every proto/schemas/*.json is a valid JSON Schema (draft 2020-12) whose $id is
    https://callgate.dev/proto/schemas/<file name>, and every $ref in it resolves;
  * every schema except objects.json has proto/examples/<NAME>.json, a non-empty JSON array
    whose items all validate against the schema (and no examples file lacks a schema);
  * proto/openapi.json parses, is OpenAPI 3.1, and every $ref to a file points at an
    existing file (and, with a #fragment, at an existing place in it).

With --frames, every non-empty line of FILE must be {"schema": NAME, "frame": <json>}; the frame
is validated against proto/schemas/NAME.json. An unknown NAME (or "objects") is a failure.

Output: one line per failure, `FAIL <schema> <where> <instance path>: <message>`, then a last
line exactly `N passed, N failed`. Checked instances (example items, frames) are counted; a
structural problem (bad schema, missing examples file, broken $ref, unreadable line) counts as
one failure. Exit status 1 if anything failed, else 0.

Needs the `jsonschema` and `referencing` packages (`make deps` installs them).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import urldefrag

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
ID_BASE = "https://callgate.dev/proto/schemas/"
SHARED = "objects"  # holds only $defs; not a frame schema, has no examples
MAX_MESSAGE = 300


@dataclass
class Report:
    """Collects failures and counts; prints failures as they come."""

    passed: int = 0
    failed: int = 0
    out: Any = field(default=sys.stdout)

    def ok(self) -> None:
        self.passed += 1

    def fail(self, schema: str, where: str, path: str, message: str, count: bool = True) -> None:
        """Prints one failure line; `count=False` for further errors of an instance already counted."""
        if count:
            self.failed += 1
        message = " ".join(message.split())
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        print(f"FAIL {schema} {where} {path}: {message}", file=self.out)

    def summary(self) -> int:
        print(f"{self.passed} passed, {self.failed} failed", file=self.out)
        return 1 if self.failed else 0


# ------------------------------------------------------------------ loading


def load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def load_schemas(schema_dir: Path, report: Report) -> dict[str, Any]:
    """NAME -> parsed schema for every schema_dir/NAME.json that parses as a JSON object."""
    schemas: dict[str, Any] = {}
    for path in sorted(schema_dir.glob("*.json")):
        name = path.name[: -len(".json")]
        try:
            contents = load_json(path)
        except (OSError, ValueError) as e:
            report.fail(name, str(path.relative_to(ROOT)), "/", f"cannot read JSON: {e}")
            continue
        if not isinstance(contents, dict):
            report.fail(name, str(path.relative_to(ROOT)), "/", "a schema file must hold a JSON object")
            continue
        schemas[name] = contents
    return schemas


def build_registry(schemas: dict[str, Any]) -> Registry:
    """A registry holding every schema under its $id (or the canonical id if it has none)."""
    resources = []
    for name, contents in schemas.items():
        resource = Resource.from_contents(contents, default_specification=DRAFT202012)
        uri = contents.get("$id") or ID_BASE + name + ".json"
        resources.append((uri, resource))
    return Registry().with_resources(resources)


def validator_for(name: str, schemas: dict[str, Any], registry: Registry) -> Draft202012Validator:
    return Draft202012Validator(schemas[name], registry=registry)


class Contract:
    """The schemas of proto/, for tests that check instances of their own against them."""

    def __init__(self) -> None:
        self.schemas = load_schemas(PROTO / "schemas", Report())
        self.registry = build_registry(self.schemas)

    def errors(self, name: str, instance: Any) -> list[str]:
        """Why `instance` is not valid against schema `name`: `[path]: message` each, none when it is."""
        validator = validator_for(name, self.schemas, self.registry)
        return [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(instance)]


# ------------------------------------------------------------------ validation helpers


def pointer(path: Iterable[Any]) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts)


def explain(error: ValidationError) -> ValidationError:
    """For oneOf/anyOf/allOf failures, the most relevant nested error reads better."""
    if error.context:
        return best_match(error.context)
    return error


def validate_instance(
    validator: Draft202012Validator, name: str, where: str, instance: Any, report: Report
) -> bool:
    errors = sorted(validator.iter_errors(instance), key=lambda e: (list(e.absolute_path), e.message))
    if not errors:
        report.ok()
        return True
    seen: set[tuple[str, str]] = set()
    for error in errors:
        shown = explain(error)
        line = (pointer(shown.absolute_path), shown.message)
        if line in seen:
            continue
        # An instance counts as one failure however many error lines it prints.
        report.fail(name, where, line[0], line[1], count=not seen)
        seen.add(line)
    return False


def iter_refs(node: Any, at: str = "") -> Iterator[tuple[str, str]]:
    """Yields (json pointer of the $ref, ref value) for every $ref in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{at}/{key}"
            if key == "$ref" and isinstance(value, str):
                yield here, value
            else:
                yield from iter_refs(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from iter_refs(value, f"{at}/{i}")


def resolve_fragment(document: Any, fragment: str) -> bool:
    if not fragment:
        return True
    if not fragment.startswith("/"):
        return False
    node = document
    for raw in fragment[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


# ------------------------------------------------------------------ the contract check


def check_schemas(schemas: dict[str, Any], registry: Registry, report: Report) -> set[str]:
    """Meta-validates every schema, its $id and its $refs. Returns the names of the good ones."""
    good = set()
    for name, contents in schemas.items():
        where = f"proto/schemas/{name}.json"
        fine = True
        try:
            Draft202012Validator.check_schema(contents)
        except SchemaError as e:
            report.fail(name, where, pointer(e.absolute_path), f"not a valid draft 2020-12 schema: {e.message}")
            fine = False
        if contents.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            report.fail(name, where, "/$schema", "must be https://json-schema.org/draft/2020-12/schema")
            fine = False
        expected_id = ID_BASE + name + ".json"
        if contents.get("$id") != expected_id:
            report.fail(name, where, "/$id", f"must be {expected_id}")
            fine = False
        resolver = registry.resolver(base_uri=contents.get("$id") or expected_id)
        for at, ref in iter_refs(contents):
            try:
                resolver.lookup(ref)
            except Unresolvable as e:
                report.fail(name, where, at, f"$ref {ref!r} does not resolve: {e}")
                fine = False
        if fine:
            good.add(name)
    return good


def check_examples(schemas: dict[str, Any], good: set[str], registry: Registry, report: Report) -> None:
    example_dir = PROTO / "examples"
    for name in sorted(schemas):
        if name == SHARED:
            continue
        path = example_dir / f"{name}.json"
        where = f"proto/examples/{name}.json"
        if not path.exists():
            report.fail(name, where, "/", "missing examples file")
            continue
        try:
            items = load_json(path)
        except (OSError, ValueError) as e:
            report.fail(name, where, "/", f"cannot read JSON: {e}")
            continue
        if not isinstance(items, list) or not items:
            report.fail(name, where, "/", "an examples file must hold a non-empty JSON array")
            continue
        if name not in good:
            report.fail(name, where, "/", "schema is broken; examples not checked")
            continue
        validator = validator_for(name, schemas, registry)
        for i, item in enumerate(items):
            validate_instance(validator, name, f"{where}[{i}]", item, report)
    for path in sorted(example_dir.glob("*.json")):
        name = path.name[: -len(".json")]
        if name not in schemas or name == SHARED:
            report.fail(name, f"proto/examples/{path.name}", "/", "examples file without a schema")


def check_openapi(report: Report) -> None:
    path = PROTO / "openapi.json"
    where = "proto/openapi.json"
    try:
        doc = load_json(path)
    except (OSError, ValueError) as e:
        report.fail("openapi", where, "/", f"cannot read JSON: {e}")
        return
    if not isinstance(doc, dict) or not str(doc.get("openapi", "")).startswith("3.1"):
        report.fail("openapi", where, "/openapi", "must be an OpenAPI 3.1.x document")
        return
    for key in ("info", "paths"):
        if not isinstance(doc.get(key), dict):
            report.fail("openapi", where, f"/{key}", "missing or not an object")
    for at, ref in iter_refs(doc):
        target, fragment = urldefrag(ref)
        if not target:  # internal reference
            if not resolve_fragment(doc, fragment):
                report.fail("openapi", where, at, f"$ref {ref!r} points nowhere in openapi.json")
            continue
        if "://" in target:
            report.fail("openapi", where, at, f"$ref {ref!r} must be a relative file path")
            continue
        file = (path.parent / target).resolve()
        if not file.is_file():
            report.fail("openapi", where, at, f"$ref target {target!r} does not exist")
            continue
        try:
            if not resolve_fragment(load_json(file), fragment):
                report.fail("openapi", where, at, f"$ref {ref!r}: no such place in {target}")
        except (OSError, ValueError) as e:
            report.fail("openapi", where, at, f"$ref target {target!r} is not JSON: {e}")


def check_contract(report: Report) -> None:
    schemas = load_schemas(PROTO / "schemas", report)
    if SHARED not in schemas:
        report.fail(SHARED, "proto/schemas/objects.json", "/", "missing")
    registry = build_registry(schemas)
    good = check_schemas(schemas, registry, report)
    check_examples(schemas, good, registry, report)
    check_openapi(report)


# ------------------------------------------------------------------ --frames


def check_frames(lines: Iterable[str], source: str, report: Report) -> None:
    schemas = load_schemas(PROTO / "schemas", report)
    registry = build_registry(schemas)
    validators: dict[str, Draft202012Validator] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            record = json.loads(line)
        except ValueError as e:
            report.fail("?", where, "/", f"line is not JSON: {e}")
            continue
        if not isinstance(record, dict) or "schema" not in record or "frame" not in record:
            report.fail("?", where, "/", 'line must be {"schema": NAME, "frame": <json>}')
            continue
        name = record["schema"]
        if not isinstance(name, str) or name == SHARED or name not in schemas:
            report.fail(str(name), where, "/", f"unknown schema name {name!r}")
            continue
        if name not in validators:
            validators[name] = validator_for(name, schemas, registry)
        validate_instance(validators[name], name, where, record["frame"], report)


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None, out: Any = None) -> int:
    parser = argparse.ArgumentParser(description="Check proto/ or frames against proto/schemas.")
    parser.add_argument("--frames", metavar="FILE", help="JSON lines of {\"schema\": NAME, \"frame\": ...}; - for stdin")
    args = parser.parse_args(argv)
    report = Report(out=out or sys.stdout)
    if args.frames is None:
        check_contract(report)
    elif args.frames == "-":
        check_frames(sys.stdin, "<stdin>", report)
    else:
        try:
            with open(args.frames, encoding="utf-8") as f:
                check_frames(f.readlines(), args.frames, report)
        except OSError as e:
            report.fail("?", args.frames, "/", f"cannot read frames file: {e}")
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
