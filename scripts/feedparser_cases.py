#!/usr/bin/env python3
"""Picks feedparser's well-formed feeds whose expectation names only what read_rss shows (an
entry's title, link, author, summary or content and dates, the feed's title) and copies them,
with the date table and the licence, into tests/fixtures/feedparser/.

  python3 scripts/feedparser_cases.py FEEDPARSER_CHECKOUT tests/fixtures/feedparser

Prints what it picked and what it left out, by reason.
"""
import pathlib
import re
import shutil
import sys

FEED_SHOWN = {"title", "title_detail.value"}
ENTRY_SHOWN = {
    "title", "title_detail.value", "link", "guidislink", "summary", "summary_detail.value",
    "description", "content.value", "author", "author_detail.name", "authors.name",
    "published", "updated", "created", "published_parsed", "updated_parsed", "created_parsed",
}
LEFT_OUT = {
    "sanitize": "which HTML a sanitiser keeps (read_rss shows text)",
    "cdf": "Microsoft's Channel Definition Format, which read_rss does not read",
}
EXPECT = re.compile(r"Description:\s*(.*?)\s*Expect:\s*(.*)\s*-->")
CHAIN = re.compile(r"\b(feed|entries)((?:\[[^\]]*\]|\.[a-z_]+)+)")


def keys(expect):
    """The fields an expectation names: `title`, `content.value`, `feed.link`."""
    out = []
    for scope, rest in CHAIN.findall(expect):
        names = [a or b for a, b in re.findall(r"\['([^']*)'\]|\.([a-z_]+)", rest)]
        names = [n for n in names if n != "has_key"]
        key = ".".join(names)
        out.append(key if scope == "entries" or key in FEED_SHOWN else "feed." + key)
    if "has_key('link')" in expect:
        out.append("link")
    return out


def main(checkout, target):
    root = pathlib.Path(checkout) / "tests" / "wellformed"
    target = pathlib.Path(target)
    picked, left = [], {}
    for path in sorted(root.rglob("*.xml")):
        rel = path.relative_to(root)
        expect = EXPECT.search(path.read_bytes().decode("utf-8", "ignore")).group(2)
        if rel.parts[0] in LEFT_OUT:
            reason = LEFT_OUT[rel.parts[0]]
        elif "http" in str(rel):
            reason = "run by feedparser through HTTP (a document address, headers)"
        elif not all(k in ENTRY_SHOWN for k in keys(expect)) or not keys(expect):
            reason = "about something read_rss does not show"
        else:
            picked.append(rel)
            continue
        left[reason] = left.get(reason, 0) + 1
    for rel in picked:
        (target / "wellformed" / rel.parent).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target / "wellformed" / rel)
    shutil.copyfile(pathlib.Path(checkout) / "tests" / "test_date_parsers.py",
                    target / "test_date_parsers.py")
    shutil.copyfile(pathlib.Path(checkout) / "LICENSE", target / "LICENSE")
    print(f"picked {len(picked)}")
    for reason, count in sorted(left.items()):
        print(f"left out {count}: {reason}")


if __name__ == "__main__":
    main(*sys.argv[1:])
