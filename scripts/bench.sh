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
curl_cmd=(curl -sS -N -X POST "$url/chat/completions" -H "Content-Type: application/json"
  -H "Authorization: Bearer bench" --data-binary "@$work/request.json")

target/release/examples/bench_measure "$runs" \
  --cmd curl -- "${curl_cmd[@]}" \
  --cmd marvin -- "${marvin[@]}" \
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
    ("marvin --version", f'{r["version"]["median_ms"]:.2f} ms median', "", "target < 1.5 ms"),
    ("/bin/true (spawn floor)", f'{r["true"]["median_ms"]:.2f} ms median', "", ""),
    ("stripped release binary", f"{size / 1e6:.2f} MB", "", "target ≤ 5 MB"),
    ("crates, normal dependency tree", f"{crates}", "", "target ≤ 100"),
]
for name, a, b, t in rows:
    print(f"{name:32} {a:>18} {b:>18}   {t}")
PY
