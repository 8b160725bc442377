"""The server keeps the shape docs/architecture.md describes: no Swift source file over 500 lines,
and no type in CallGateServer with more than 15 stored properties (a type that needs more holds
more than one idea). Configuration records (`*Configuration`) are the exception: each is a flat
list of independent options, one per `serve` flag, read once at start."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 500
MAX_STORED = 15

TYPE = re.compile(r"^(?:public |private |fileprivate )?(?:final )?(?:class|struct|enum|actor) (\w+)")
EXTENSION = re.compile(r"^(?:public |private |fileprivate )?extension ")
STORED = re.compile(
    r"^    (?:(?:public|private|fileprivate|internal)(?:\(set\))? )*(?:weak |unowned(?:\(unsafe\))? )?"
    r"(lazy )?(?:var|let) (\w+)(.*)$")


def stored_properties(path: Path) -> dict[str, list[str]]:
    """Type name -> the stored properties its top-level declaration in `path` declares."""
    found: dict[str, list[str]] = {}
    current = None
    for line in path.read_text().splitlines():
        if match := TYPE.match(line):
            current = match.group(1)
            found.setdefault(current, [])
        elif EXTENSION.match(line) or line.startswith("protocol "):
            current = None
        elif current and (match := STORED.match(line)) and " static " not in line:
            lazy, name, rest = match.groups()
            computed = "{" in rest and "=" not in rest.split("{")[0]
            if lazy or not computed:
                found[current].append(name)
    return found


def test_no_source_file_is_over_500_lines():
    long = {str(path.relative_to(ROOT)): count for path in sorted((ROOT / "Sources").rglob("*.swift"))
            if (count := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}, long


def test_no_server_type_holds_more_than_15_stored_properties():
    crowded = {}
    for path in sorted((ROOT / "Sources" / "CallGateServer").glob("*.swift")):
        for name, properties in stored_properties(path).items():
            if len(properties) > MAX_STORED and not name.endswith("Configuration"):
                crowded[name] = properties
    assert crowded == {}, crowded


def test_the_counter_sees_stored_properties_and_skips_computed_ones(tmp_path):
    sample = tmp_path / "Sample.swift"
    sample.write_text(
        "final class Sample {\n"
        "    let a: Int\n"
        "    private(set) var b = 0\n"
        "    lazy var c = makeC()\n"
        "    unowned var d: Other!\n"
        "    var e: Int { a + b }\n"
        "    static let f = 1\n"
        "    var g: Int {\n"
        "        a\n"
        "    }\n"
        "}\n"
        "extension Sample {\n"
        "    var h: Int { 0 }\n"
        "}\n")
    assert stored_properties(sample) == {"Sample": ["a", "b", "c", "d"]}
