"""Every relative link in the project's Markdown (README, docs/, proto/, deploy/, tools/) points at a
file that exists, and a link with `#anchor` at a heading of that file: pages split or renamed
leave no dead link behind."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


def markdown_files() -> list[Path]:
    found = [ROOT / "README.md"]
    for folder in ("docs", "proto", "deploy", "tools"):
        found += [path for path in (ROOT / folder).rglob("*.md")
                  if "node_modules" not in path.parts and ".build" not in path.parts]
    return sorted(found)


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of `path` (code fences skipped)."""
    slugs, fence = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower().replace("`", "")
        slugs.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return slugs


def test_every_relative_link_resolves():
    dead = []
    for page in markdown_files():
        fence = False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            for link in LINK.findall(line):
                if link.startswith(("http://", "https://", "mailto:")) or "<" in link:
                    continue
                target, _, anchor = link.partition("#")
                path = (page.parent / target).resolve() if target else page
                if not path.exists():
                    dead.append(f"{page.relative_to(ROOT)}:{number}: {link} (no such file)")
                elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                    dead.append(f"{page.relative_to(ROOT)}:{number}: {link} (no such heading)")
    assert not dead, "dead links:\n" + "\n".join(dead)
