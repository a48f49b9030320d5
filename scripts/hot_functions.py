#!/usr/bin/env python3
"""Writes link/hot-functions.txt: the functions Marvin's common runs execute, in the order they
first run, for the linker to place side by side (build.rs passes the list to rust-lld).

The kernel maps a program's code 64 KB around each page it touches, so a quick question that
runs a thousand functions scattered over 4 MB of code keeps most of the code resident. With the
hot functions together the same run maps a fraction of it. Run this after a change that moves
much code, or a new toolchain (it renames the standard library's symbols): `make hot-functions`.
Needs valgrind. Names that no longer exist are skipped by the linker, so a stale list costs
memory, never a build.
"""

import bisect
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "target" / "hot-functions"
OUT = ROOT / "link" / "hot-functions.txt"

# What people run most: the bench's one-shot coding ask, an everyday question, and the flags a
# script asks first.
RUNS = [
    ["--non-interactive", "--prompt", "Count to one thousand."],
    ["What is the capital of France?"],
    ["--version"],
    ["--help"],
]


def build():
    """The release binary exactly as `cargo build --release` makes it (a changed profile would
    rename every function), with the linker's map of where each function landed."""
    link_map = TARGET / "marvin.map"
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET), MARVIN_LINK_MAP=str(link_map))
    for args in (["--bin", "marvin"], ["--example", "stream_server"]):
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", *args],
                       cwd=ROOT, env=env, check=True)
    release = TARGET / "release"
    return release / "marvin", release / "examples" / "stream_server", link_map


def functions_placed(link_map):
    """(start, size, symbol) of each function section in the binary, from lld's map."""
    section = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S.*:"
                         r"\(\.text(?:\.unlikely|\.hot|\.startup|\.exit)?\.([^)]+)\)$")
    placed = []
    for line in link_map.read_text(errors="replace").splitlines():
        match = section.match(line)
        if match:
            placed.append((int(match.group(1), 16), int(match.group(2), 16), match.group(3)))
    placed.sort()
    return placed


def instructions_run(profile):
    """Addresses of the binary's instructions a callgrind profile (--dump-instr=yes) ran, in
    the order the profile first lists them (a stripped binary has no names to give)."""
    objects, current, address, found, seen = {}, None, 0, [], set()
    for line in profile.read_text(errors="replace").splitlines():
        match = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if match:
            kind, number, name = match.groups()
            if name:
                objects[number] = name
            if kind == "ob":
                current = objects[number]
            continue
        if not line or line[0] not in "0123456789+-*":
            continue  # names, calls= lines (their target is another function) and totals
        position = line.split()[0]
        if position.startswith("0x"):
            address = int(position, 16)
        elif position[0] in "+-":
            address += int(position)
        if current and current.endswith("/marvin") and address not in seen:
            seen.add(address)
            found.append(address)
    return found


def main():
    marvin, stream_server, link_map = build()
    placed = functions_placed(link_map)
    starts = [start for start, _, _ in placed]
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        url_file = work / "url"
        server = subprocess.Popen([stream_server, "--tokens", "1000"],
                                  stdout=url_file.open("w"))
        try:
            for _ in range(100):
                if url_file.read_text().strip():
                    break
                time.sleep(0.05)
            env = dict(os.environ, MARVIN_HOME=str(work / "home"),
                       OPENAI_COMPAT_URL=url_file.read_text().strip(),
                       OPENAI_COMPAT_API_KEY="hot", MARVIN_MODEL="hot-model")
            order, seen = [], set()
            for i, args in enumerate(RUNS):
                subprocess.run([marvin, *args], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # warm: the home, the model cache
                profile = work / f"run{i}.out"
                subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes",
                                f"--callgrind-out-file={profile}", marvin, *args],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               check=True)
                for address in instructions_run(profile):
                    at = bisect.bisect_right(starts, address) - 1
                    if at < 0 or address >= placed[at][0] + placed[at][1]:
                        continue  # the start-up code outside any function section
                    function = placed[at][2]
                    if function not in seen:
                        seen.add(function)
                        order.append(function)
        finally:
            server.kill()
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("".join(f"{name}\n" for name in order))
    print(f"{OUT.relative_to(ROOT)}: {len(order)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()
