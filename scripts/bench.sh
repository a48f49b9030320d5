#!/usr/bin/env bash
# make bench: speed and size of Marvin against a local server streaming 1,000 tokens.
# A benchmark, not a test: it prints figures, side by side with curl in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_RUNS:-30}
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example stream_server --example bench_measure \
  --example tool_round_server --example mcp_echo_server --example gateway_bench \
  --example markdown_bench
command -v curl >/dev/null || { echo "bench: curl is needed for the comparison" >&2; exit 1; }

work=$(mktemp -d)
models=()
trap 'kill "$server_pid" "${round_pid:-}" "${models[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
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

# A round of six network tools against six local services that each answer after 50 ms:
# the round's tool time is its slowest call (they run in parallel), from the --json events.
target/release/examples/tool_round_server --delay-ms 50 >"$work/round-env" &
round_pid=$!
for _ in $(seq 100); do grep -q '^OPENAI_COMPAT_URL=' "$work/round-env" 2>/dev/null && break; sleep 0.05; done
mapfile -t round_env <"$work/round-env"
for _ in $(seq "$runs"); do
  env "${round_env[@]}" "MARVIN_HOME=$work/home-round" OPENAI_COMPAT_API_KEY=bench MARVIN_MODEL=bench-model \
    target/release/marvin --non-interactive --json --prompt "Look these up." >>"$work/round-events" 2>/dev/null
done

# MCP: 50 calls, one per round, to the echo tool of a stdio server that answers at once,
# against 50 calls to a built-in tool (read_file) and against no call at all, so what one
# tools/call through Marvin costs is ((mcp 50 - mcp 0) - (read 50 - read 0)) / 50. Then four
# servers that each take 200 ms to start: started in parallel, they add about 200 ms, not 800.
# Started here, not in a $(...) subshell: the trap must know every server's pid, or one left
# running holds the pipe of `make bench | tail` open for ever.
model_at() {  # NAME ARGS...: a scripted model (tool_round_server --call); model_url NAME: its URL
  target/release/examples/tool_round_server "${@:2}" >"$work/$1-env" &
  models+=($!)
  for _ in $(seq 100); do grep -q '^OPENAI_COMPAT_URL=' "$work/$1-env" 2>/dev/null && break; sleep 0.05; done
}
model_url() { sed -n 's/^OPENAI_COMPAT_URL=//p' "$work/$1-env"; }
mcp_calls=50
echo_server=$PWD/target/release/examples/mcp_echo_server
mkdir -p "$work/mcp-home" "$work/mcp4-home" "$work/read-home" "$work/project"
echo "a small file" >"$work/project/note.txt"
printf '{"mcpServers": {"bench": {"command": "%s"}}}' "$echo_server" >"$work/mcp-home/mcp.json"
slow='{"command": "'"$echo_server"'", "args": ["--init-delay-ms", "200"]}'
printf '{"mcpServers": {"a": %s, "b": %s, "c": %s, "d": %s}}' "$slow" "$slow" "$slow" "$slow" >"$work/mcp4-home/mcp.json"
model_at mcp --call bench__echo '{"text":"hello"}' --rounds "$mcp_calls"
model_at read --call read_file '{"path":"note.txt"}' --rounds "$mcp_calls"
model_at none --call read_file '{}' --rounds 0
# The sandbox: 50 git_status calls (two confined git processes each) in a repository, with
# --sandbox workspace (the default) and off; the difference over 100 programs is what entering
# a Landlock ruleset costs each program Marvin starts.
model_at git --call git_status '{}' --rounds "$mcp_calls"
git -C "$work/project" init -q 2>/dev/null
mcp_url=$(model_url mcp) read_url=$(model_url read) none_url=$(model_url none) git_url=$(model_url git)
ask=(target/release/marvin --non-interactive --working-dir "$work/project" --prompt "Go.")
target/release/examples/bench_measure "$runs" \
  --cmd mcp_calls -- env "MARVIN_HOME=$work/mcp-home" "OPENAI_COMPAT_URL=$mcp_url" "${ask[@]}" \
  --cmd mcp_none -- env "MARVIN_HOME=$work/mcp-home" "OPENAI_COMPAT_URL=$none_url" "${ask[@]}" \
  --cmd read_calls -- env "MARVIN_HOME=$work/read-home" "OPENAI_COMPAT_URL=$read_url" "${ask[@]}" \
  --cmd read_none -- env "MARVIN_HOME=$work/read-home" "OPENAI_COMPAT_URL=$none_url" "${ask[@]}" \
  --cmd mcp_four -- env "MARVIN_HOME=$work/mcp4-home" "OPENAI_COMPAT_URL=$none_url" "${ask[@]}" \
  --cmd git_confined -- env "MARVIN_HOME=$work/read-home" "OPENAI_COMPAT_URL=$git_url" "${ask[@]}" --sandbox workspace \
  --cmd git_open -- env "MARVIN_HOME=$work/read-home" "OPENAI_COMPAT_URL=$git_url" "${ask[@]}" --sandbox off \
  >>"$work/results"

# The gateway: one session, a 1,000-token answer, to 1 client and to 50 (plus one that never
# reads), sent at once and paced at 1,000 tokens a second as a fast model sends them: when the
# last client has `done`, the turn's own time, the gateway's peak memory.
target/release/examples/stream_server --tokens 1000 --per-second 1000 >"$work/paced-url" &
models+=($!)
for _ in $(seq 100); do [ -s "$work/paced-url" ] && break; sleep 0.05; done
for _ in $(seq 5); do
  for clients in 1 50; do
    printf 'burst ' >>"$work/gateway"
    target/release/examples/gateway_bench target/release/marvin "$url" "$clients" --stalled >>"$work/gateway"
  done
done
for _ in $(seq 3); do
  for clients in 1 50; do
    printf 'paced ' >>"$work/gateway"
    target/release/examples/gateway_bench target/release/marvin "$(cat "$work/paced-url")" "$clients" --stalled >>"$work/gateway"
  done
done

size=$(stat -c %s target/release/marvin)
# The shared libraries every start loads (one more, libm say, costs every start time).
libs=$(readelf -d target/release/marvin 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | paste -sd ' ' -)
crates=$(cargo tree -e normal --prefix none --locked 2>/dev/null | sed 's/ (\*)//' | sort -u | grep -vc '^marvin ')
python3 - "$work/results" "$size" "$crates" "$work/round-events" "$libs" "$mcp_calls" "$work/gateway" <<'PY'
import json, statistics, sys
slowest, errors = [], 0  # per round: its slowest call; calls that failed
for line in open(sys.argv[4]):
    event = json.loads(line)
    if event["type"] == "tool_round":
        slowest.append(0)
    elif event["type"] == "tool_result":
        slowest[-1] = max(slowest[-1], event["elapsed_ms"])
        errors += event["is_error"]
round_ms = statistics.median(slowest) if slowest else float("nan")
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
    ("six network tools, 50 ms each", f"{round_ms:.0f} ms median", f"{errors} failed calls", "target ≤ 55 ms"),
    ("stripped release binary", f"{size / 1e6:.2f} MB", "", "target ≤ 6 MB"),
    ("crates, normal dependency tree", f"{crates}", "", "target ≤ 100"),
    ("shared libraries loaded", sys.argv[5] or "?", "", "libc, libgcc_s only"),
]
ms = lambda name: r[name]["median_ms"]
calls = int(sys.argv[6])
per_call = ((ms("mcp_calls") - ms("mcp_none")) - (ms("read_calls") - ms("read_none"))) / calls
rows += [
    ("one MCP tools/call (stdio)", f"{per_call:+.3f} ms", f"vs read_file, {calls} calls", "target ≤ 1 ms"),
    ("four MCP servers, 200 ms start", f'+{ms("mcp_four") - ms("read_none"):.0f} ms', "vs none", "in parallel: ≈ 200"),
    ("a program entering the sandbox", f'{(ms("git_confined") - ms("git_open")) / (2 * calls):+.3f} ms',
     f'{2 * calls} git runs: {ms("git_confined"):.0f} vs {ms("git_open"):.0f} ms', "Landlock, per program"),
]
runs = {}
for line in open(sys.argv[7]):
    mode, clients, delivered, turn, every, rss, events, cpu = line.split()
    runs.setdefault((mode, clients), []).append(
        (float(delivered), float(turn), every == "true", int(rss) / 1024, int(events), float(cpu)))
for mode in ("burst", "paced"):
    for clients in ("1", "50"):
        got = runs.get((mode, clients), [])
        if not got:
            continue
        delivered = statistics.median(g[0] for g in got)
        turn = statistics.median(g[1] for g in got)
        rss = max(g[3] for g in got)
        cpu = statistics.median(g[5] for g in got)
        every = f"{got[0][4]} events alike" if all(g[2] for g in got) else "EVENTS DIFFER"
        rows.append((f"serve {mode}, {clients} client(s) + 1 stalled",
                     f"{delivered:.1f} ms to last done", f"turn {turn:.1f} ms, {rss:.1f} MB",
                     f"{every}, gateway CPU {cpu:.0f} ms"))
width = max(len(row[0]) for row in rows)
for name, a, b, t in rows:
    print(f"{name:{width}} {a:>18} {b:>18}   {t}")
PY

# The README's size figure must be the binary's: said, not left to drift.
said=$(sed -n 's/^| stripped binary[^|]*| \([0-9.]*\) MB.*/\1/p' README.md)
measured=$(python3 -c "print(f'{$size / 1e6:.2f}')")
if [ "$said" != "$measured" ]; then
  echo "README.md says the stripped binary is ${said:-nothing} MB; it is $measured MB: update it" >&2
  size_drift=1
fi

# The Markdown renderer on cmark's pathological inputs (issue 41, finding 6): the time at 1×,
# 10× and 100× the size, whole and streamed in small pieces, should grow about tenfold a step.
echo
target/release/examples/markdown_bench

# What the first request carries (issue "Model-aware requests"): an everyday question of
# SLURP's devel split, each asked of a fresh home, and a --non-interactive coding question;
# and the first-round recall on that split.
echo
python3 scripts/request_sizes.py target/release/marvin

if [ -n "${size_drift:-}" ]; then
  exit 1
fi
