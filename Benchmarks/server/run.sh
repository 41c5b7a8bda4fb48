#!/usr/bin/env bash
# The stub server under load, against nginx, in one run on loopback.
#
# wrk (-t2 -c64, 10 s after a 2 s warm-up) asks nginx for a 1 KB fixture file, then `doppel serve`
# (release build) for the same file through manifests of 1, 1,000 and 10,000 stubs, then nginx
# again. Each request names one of 100 paths spread over the stubs. Prints requests per second,
# latency and the ratio to nginx (the mean of its two runs).
#
#   Benchmarks/server/run.sh                   # DURATION=10s CONNECTIONS=64 THREADS=2
#   DURATION=30s Benchmarks/server/run.sh
#   SERVER_CPUS=1 WRK_CPUS=0 Benchmarks/server/run.sh   # pinned: servers on core 1, wrk on core 0
#
# Installs wrk and nginx (Debian packages) when they are missing. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Benchmarks/server

duration=${DURATION:-10s}
connections=${CONNECTIONS:-64}
threads=${THREADS:-2}
nginx_port=${NGINX_PORT:-18080}
server_pin=()
wrk_pin=()
if [ -n "${SERVER_CPUS:-}" ]; then server_pin=(taskset -c "$SERVER_CPUS"); fi
if [ -n "${WRK_CPUS:-}" ]; then wrk_pin=(taskset -c "$WRK_CPUS"); fi
doppel_port=${DOPPEL_PORT:-18081}

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]}…" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

echo "Building doppel (release)…" >&2
swift build -c release --traits Server --product doppel-cli --scratch-path .build-server-release >&2
doppel_bin=$(swift build -c release --traits Server --product doppel-cli --scratch-path .build-server-release --show-bin-path)/doppel-cli

work=$(mktemp -d)
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill -INT "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# The fixture: 1,024 bytes of JSON.
python3 - "$work/item.json" <<'PY'
import json, sys
item = {"id": 1, "name": "Abyssinian", "origin": "Egypt", "description": ""}
item["description"] = "x" * (1024 - len(json.dumps(item, separators=(",", ":"))))
text = json.dumps(item, separators=(",", ":"))
assert len(text) == 1024
open(sys.argv[1], "w").write(text)
PY

# Manifests of 1, 1,000 and 10,000 stubs, each answering with the fixture file.
for stubs in 1 1000 10000; do
  mkdir -p "$work/m$stubs"
  cp "$work/item.json" "$work/m$stubs/item.json"
  python3 - "$work/m$stubs/doppel.json" "$stubs" <<'PY'
import json, sys
path, count = sys.argv[1], int(sys.argv[2])
stubs = [{"request": f"GET /items/{i}.json", "response": {"file": "item.json"}} for i in range(count)]
json.dump({"stubs": stubs}, open(path, "w"))
PY
done

sed -e "s|@WORK@|$work|g" -e "s|@PORT@|$nginx_port|g" "$here/nginx.conf.template" > "$work/nginx.conf"
mkdir -p "$work"/nginx-{body,proxy,fastcgi,uwsgi,scgi}

wait_for() {
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "Not answering: $1" >&2
  return 1
}

# wrk's requests per second, p50 and p99 latency, as "rps p50 p99".
measure() {
  local url=$1 stubs=$2
  STUBS=$stubs "${wrk_pin[@]}" wrk -t"$threads" -c"$connections" -d2s -s "$here/paths.lua" "$url" >/dev/null
  STUBS=$stubs "${wrk_pin[@]}" wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$here/paths.lua" "$url" |
    awk '/Requests\/sec:/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print rps, p50, p99}'
}

run_nginx() {
  "${server_pin[@]}" "$nginx_bin" -c "$work/nginx.conf" -p "$work" &
  server_pid=$!
  wait_for "http://127.0.0.1:$nginx_port/items/0.json"
  measure "http://127.0.0.1:$nginx_port" 1
  stop_server
}

run_doppel() {
  local stubs=$1
  "${server_pin[@]}" "$doppel_bin" serve "$work/m$stubs" --port "$doppel_port" --quiet --no-watch >"$work/doppel.log" 2>&1 &
  server_pid=$!
  wait_for "http://127.0.0.1:$doppel_port/items/0.json"
  measure "http://127.0.0.1:$doppel_port" "$stubs"
  stop_server
}

echo "wrk -t$threads -c$connections -d$duration, 1 KB body, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), servers on CPUs ${SERVER_CPUS:-any}, wrk on CPUs ${WRK_CPUS:-any}"
read -r n1 n1p50 n1p99 < <(run_nginx)
read -r d1 d1p50 d1p99 < <(run_doppel 1)
read -r d1k d1kp50 d1kp99 < <(run_doppel 1000)
read -r d10k d10kp50 d10kp99 < <(run_doppel 10000)
read -r n2 n2p50 n2p99 < <(run_nginx)

python3 - "$n1" "$n2" "$d1" "$d1k" "$d10k" "$n1p50/$n1p99" "$n2p50/$n2p99" "$d1p50/$d1p99" "$d1kp50/$d1kp99" "$d10kp50/$d10kp99" <<'PY'
import sys
n1, n2, d1, d1k, d10k = (float(x) for x in sys.argv[1:6])
lat = sys.argv[6:]
nginx = (n1 + n2) / 2
rows = [
    ("nginx (first run)", n1, lat[0], None),
    ("nginx (last run)", n2, lat[1], None),
    ("doppel serve, 1 stub", d1, lat[2], d1 / nginx),
    ("doppel serve, 1,000 stubs", d1k, lat[3], d1k / nginx),
    ("doppel serve, 10,000 stubs", d10k, lat[4], d10k / nginx),
]
print(f"| server | requests/s | latency p50 / p99 | vs nginx |")
print(f"|---|---:|---:|---:|")
for name, rps, latency, ratio in rows:
    print(f"| {name} | {rps:,.0f} | {latency} | {'' if ratio is None else f'{ratio:.2f}×'} |")
print(f"\nnginx mean: {nginx:,.0f} requests/s. 10,000 stubs vs 1 stub: {d10k / d1:.2f}×.")
PY
