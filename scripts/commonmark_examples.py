#!/usr/bin/env python3
"""Extracts the examples of a CommonMark-style spec.txt into JSON, the shape of the spec's own
`spec.json`: [{"markdown", "html", "example", "section", "extension"}], `→` read as a tab.

  python3 scripts/commonmark_examples.py spec.txt > tests/fixtures/commonmark/spec.json
  python3 scripts/commonmark_examples.py --extensions gfm-spec.txt > .../gfm_extensions.json

--extensions keeps only the examples tagged with an extension (`example table`, ...).
"""
import json
import re
import sys

FENCE = "`" * 32


def examples(text):
    section, number, out = "", 0, []
    lines = iter(text.split("\n"))
    for line in lines:
        heading = re.match(r"#{1,6} +(.*)", line)
        if heading:
            section = heading.group(1).strip()
            continue
        if not line.startswith(FENCE + " example"):
            continue
        extension = line[len(FENCE + " example"):].strip()
        number += 1
        parts, current = [], []
        for body in lines:
            if body == FENCE:
                break
            if body == ".":
                parts.append(current)
                current = []
            else:
                current.append(body)
        parts.append(current)
        markdown, html = ("".join(l + "\n" for l in p).replace("→", "\t") for p in parts)
        out.append({"markdown": markdown, "html": html, "example": number,
                    "section": section, "extension": extension})
    return out


def main():
    args = sys.argv[1:]
    only_extensions = args and args[0] == "--extensions"
    path = args[-1]
    with open(path, encoding="utf-8") as f:
        found = examples(f.read())
    if only_extensions:
        found = [e for e in found if e["extension"]]
    json.dump(found, sys.stdout, ensure_ascii=False, indent=0)
    sys.stdout.write("\n")


main()
