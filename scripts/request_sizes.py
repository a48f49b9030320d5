#!/usr/bin/env python3
"""What Marvin's first request carries, measured through the binary (part of `make bench`).

Every sentence of SLURP's devel split (tests/fixtures/routing: things people said to a home
assistant, with the Marvin tools that serve each) is asked as `marvin "SENTENCE"` of a fresh
MARVIN_HOME against a local server that records the request and answers in one word. Prints
the first request's size (median, 95th percentile, largest), how many tools it offered, and
the first-round recall: for how many of the requests some tool serves, one of those tools was
in the first request. Then the size of a --non-interactive coding question's first request,
and of the coding tasks of the development set (tests/fixtures/routing/marvin_devel.jsonl);
and how much of a conversation's second request repeats its first byte for byte.

    scripts/request_sizes.py target/release/marvin [--limit N]
"""

import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLIT = os.path.join(ROOT, "tests/fixtures/routing/slurp_devel.jsonl")
DEVEL = os.path.join(ROOT, "tests/fixtures/routing/marvin_devel.jsonl")
ANSWER = (
    b'data: {"choices":[{"index":0,"delta":{"content":"Done."}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


class Recorder(http.server.BaseHTTPRequestHandler):
    last = None

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Recorder.last = body
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args):
        pass


def environment(home, url):
    """A fresh user's environment in `home`, with the recorder at `url` as the provider."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": home,
        "MARVIN_HOME": os.path.join(home, "marvin"),
        "MARVIN_LOCAL_PORTS": "none",
        "OPENAI_COMPAT_URL": url,
        "MARVIN_MODEL": "bench-model",
    }


def ask(marvin, url, args, cwd=None):
    """The first request `marvin ARGS` sends, as (bytes, tool names)."""
    with tempfile.TemporaryDirectory() as home:
        env = environment(home, url)
        Recorder.last = None
        subprocess.run([marvin, *args], env=env, cwd=cwd or home, capture_output=True, timeout=60)
    if Recorder.last is None:
        return 0, []
    request = json.loads(Recorder.last)
    names = [t["function"]["name"] for t in request.get("tools", [])]
    return len(Recorder.last), names


def main():
    marvin = os.path.abspath(sys.argv[1])
    limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    sizes, counts, served, asked = [], [], 0, 0
    with open(SPLIT) as lines:
        requests = [json.loads(line) for line in lines][:limit]
    for request in requests:
        size, names = ask(marvin, url, [request["sentence"]])
        sizes.append(size)
        counts.append(len(names))
        if request["expect"]:
            asked += 1
            served += any(name in request["expect"] for name in names)
    sizes.sort()
    p95 = sizes[int(len(sizes) * 0.95)]
    print(
        f"first request of an everyday question ({len(sizes)} of SLURP's devel split): "
        f"median {statistics.median(sizes) / 1024:.1f} KB, p95 {p95 / 1024:.1f} KB, "
        f"largest {sizes[-1] / 1024:.1f} KB; tools offered: median {statistics.median(counts):.0f}"
    )
    print(f"first-round recall: {served}/{asked} = {100 * served / asked:.1f}%")
    coding = [
        line["sentence"]
        for line in map(json.loads, open(DEVEL))
        if line["kind"] == "coding"
    ][:limit]
    with tempfile.TemporaryDirectory() as project:
        os.makedirs(os.path.join(project, "src"))
        with open(os.path.join(project, "src", "parse.rs"), "w") as f:
            f.write("pub fn parse(s: &str) -> u32 { s.parse().unwrap() }\n")
        size, names = ask(
            marvin,
            url,
            ["--non-interactive", "--prompt", "why does parse panic on empty input in src/parse.rs?"],
            cwd=project,
        )
        print(f"first request of a --non-interactive coding question: {size / 1024:.1f} KB, {len(names)} tools")
        sizes = sorted(
            ask(marvin, url, ["--non-interactive", "--prompt", sentence], cwd=project)[0]
            for sentence in coding
        )
    p95 = sizes[int(len(sizes) * 0.95)]
    print(
        f"first request of a coding task ({len(sizes)} of the development set's): "
        f"median {statistics.median(sizes) / 1024:.1f} KB, p95 {p95 / 1024:.1f} KB"
    )
    second_turn(marvin, url)
    server.shutdown()


def second_turn(marvin, url):
    """How much of a conversation's second request (`marvin -c`) repeats its first byte for
    byte: the system prompt, the tools, the messages sent before (what a provider's cache of
    the prompt's start holds)."""
    with tempfile.TemporaryDirectory() as home:
        env = environment(home, url)
        bodies = []
        for args in (["what is the capital of France?"], ["-c", "and of Italy?"]):
            Recorder.last = None
            subprocess.run([marvin, *args], env=env, cwd=home, capture_output=True, timeout=60)
            bodies.append(json.loads(Recorder.last))
    first, second = bodies
    said, tools = first["messages"], first.get("tools", [])
    same = (
        second["messages"][: len(said)] == said
        and second.get("tools", [])[: len(tools)] == tools
    )
    repeated = len(json.dumps(said)) + len(json.dumps(tools)) if same else 0
    whole = len(json.dumps(second["messages"])) + len(json.dumps(second.get("tools", [])))
    print(
        f"second turn of a conversation (-c): repeats the first request's system prompt, tools and "
        f"messages byte for byte: {'yes' if same else 'NO'}, {repeated / 1024:.1f} of "
        f"{whole / 1024:.1f} KB ({(whole - repeated) / 1024:.1f} KB new)"
    )


if __name__ == "__main__":
    main()
