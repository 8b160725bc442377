"""The client guides (docs/guides) show frames and bodies an app developer copies: each JSON
block there says what it is in the HTML comment just above it, `<!-- proto: NAME -->` (a schema of
proto/schemas, validated against it) or `<!-- proto: none (...) -->` (not CallGate's: an APNs or
FCM payload your backend builds, shown for the fields it carries over). A JSON block without such
a comment, or one that does not parse or validate, fails."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from proto_check import Contract

ROOT = Path(__file__).resolve().parent.parent
GUIDES = sorted((ROOT / "docs" / "guides").glob("*.md"))
BLOCK = re.compile(r"(?:<!-- proto: (?P<name>[^\s>]+)[^>]*-->\n)?```json\n(?P<body>.*?)```", re.S)


def blocks(path: Path) -> list[tuple[str | None, str]]:
    return [(match["name"], match["body"]) for match in BLOCK.finditer(path.read_text())]


def test_there_are_guides_for_ios_android_and_the_web():
    assert {path.stem for path in GUIDES} >= {"ios", "android", "web"}


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: path.stem)
def test_every_json_block_of_a_guide_is_what_proto_says(guide):
    contract = Contract()
    found = blocks(guide)
    assert found, f"{guide.name} shows no JSON"
    for index, (name, body) in enumerate(found):
        assert name is not None, f"{guide.name}: JSON block {index + 1} says nothing of what it is"
        instance = json.loads(body)
        if name == "none":
            continue
        assert name in contract.schemas, f"{guide.name}: no schema {name}"
        errors = contract.errors(name, instance)
        assert not errors, f"{guide.name}: block {index + 1} ({name}): {errors}"
