#!/usr/bin/env bash
# make bench: speed and size of Marvin against a local server streaming 1,000 tokens.
# A benchmark, not a test: it prints figures, side by side with curl in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_RUNS:-30}
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example stream_server --example bench_measure
command -v curl >/dev/null || { echo "bench: curl is needed for the comparison" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
target/release/examples/stream_server --tokens 1000 --save-request "$work/request.json" >"$work/url" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url=$(cat "$work/url")

export MARVIN_HOME="$work/home" OPENAI_COMPAT_URL="$url" OPENAI_COMPAT_API_KEY=bench MARVIN_MODEL=bench-model
marvin=(target/release/marvin --non-interactive --prompt "Count to one thousand.")
"${marvin[@]}" >/dev/null 2>&1   # warm up, and record the exact request Marvin sends
# 50 user tools, to see what discovering them costs at start-up.
tools_home="$work/home-with-tools"
for i in $(seq 1 50); do
  mkdir -p "$tools_home/tools/tool$i"
  printf '{"name": "tool%s", "description": "Benchmark tool %s", "command": ["./run.sh"], "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}' "$i" "$i" >"$tools_home/tools/tool$i/tool.json"
done
curl_cmd=(curl -sS -N -X POST "$url/chat/completions" -H "Content-Type: application/json"
  -H "Authorization: Bearer bench" --data-binary "@$work/request.json")

target/release/examples/bench_measure "$runs" \
  --cmd curl -- "${curl_cmd[@]}" \
  --cmd marvin -- "${marvin[@]}" \
  --cmd plain -- env "MARVIN_HOME=$work/home" "${marvin[@]}" \
  --cmd tools -- env "MARVIN_HOME=$tools_home" "${marvin[@]}" \
  --cmd version -- target/release/marvin --version \
  --cmd true -- /bin/true >"$work/results"

size=$(stat -c %s target/release/marvin)
crates=$(cargo tree -e normal --prefix none --locked 2>/dev/null | sed 's/ (\*)//' | sort -u | grep -vc '^marvin ')
python3 - "$work/results" "$size" "$crates" <<'PY'
import sys
r = {}
for line in open(sys.argv[1]):
    name, ms, kb = line.split()
    r[name] = {"median_ms": float(ms), "max_rss_mb": int(kb) / 1024}
size = int(sys.argv[2]); crates = int(sys.argv[3])
ratio = r["marvin"]["median_ms"] / r["curl"]["median_ms"]
rows = [
    ("ask, curl (same request)", f'{r["curl"]["median_ms"]:.2f} ms median', f'peak RSS {r["curl"]["max_rss_mb"]:.1f} MB', ""),
    ("ask, marvin --non-interactive", f'{r["marvin"]["median_ms"]:.2f} ms median', f'peak RSS {r["marvin"]["max_rss_mb"]:.1f} MB', "target ≤ 6 MB"),
    ("ask, marvin / curl", f"{ratio:.2f}x", "", "target ≤ 0.85x"),
    ("ask with 50 user tools", f'{r["tools"]["median_ms"]:.2f} ms median', f'+{r["tools"]["median_ms"] - r["plain"]["median_ms"]:.2f} ms vs none', "(both via env)"),
    ("marvin --version", f'{r["version"]["median_ms"]:.2f} ms median', "", "target < 1.5 ms"),
    ("/bin/true (spawn floor)", f'{r["true"]["median_ms"]:.2f} ms median', "", ""),
    ("stripped release binary", f"{size / 1e6:.2f} MB", "", "target ≤ 5 MB"),
    ("crates, normal dependency tree", f"{crates}", "", "target ≤ 100"),
]
for name, a, b, t in rows:
    print(f"{name:32} {a:>18} {b:>18}   {t}")
PY
