#!/usr/bin/env bash
# Compares Cairn's router with a local redis-server (appendonly yes, appendfsync everysec) using
# redis-benchmark in the same run, and measures how long writes stall when a replicaset leader
# stops. Prints ratios (Cairn / Redis), since this machine is shared and absolute figures drift.
#
#   bench/redis-compare.sh [requests-per-test]      (default 50000)
#   FAILOVER=0 bench/redis-compare.sh 20000         (quick: no failover rounds)
#   TESTS=lpush,lpop,sadd,spop,zadd,lrange_100 FAILOVER=0 bench/redis-compare.sh 20000
#                                                   (other redis-benchmark tests, pipeline 1 and 16; default set,get)
#   ROUTER_YAML='{maxInflightBatches: 2}' adds a router section to the generated config (experiments)
#   ENGINE=microraft runs the storage nodes on that Raft engine (storage.engine; default: cairn up's)
#   REDIS_PORT, CAIRN_PORT, BASE_PORT override the ports (defaults 7590, 7591, 7600)
#
# Needs redis-server and redis-benchmark (installed with apt-get when missing) and python3.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-50000}"
WORK="$(mktemp -d /tmp/cairn-bench.XXXXXX)"
REDIS_PORT="${REDIS_PORT:-7590}"
CAIRN_PORT="${CAIRN_PORT:-7591}"
BASE_PORT="${BASE_PORT:-7600}"
FAILOVER="${FAILOVER:-1}"   # FAILOVER=0 skips the failover rounds (quick runs)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
  apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null
fi

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --appendonly yes --appendfsync everysec --save "" \
  --dir "$WORK" --daemonize no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
if [ -n "${ROUTER_YAML:-}" ] || [ -n "${ENGINE:-}" ]; then
  # Experiments: the config `cairn up` would write (2 replicasets x 3 nodes), plus a router section,
  # e.g. ROUTER_YAML='{maxInflightBatches: 2}'.
  mkdir -p "$WORK/cairn"
  python3 - "$WORK/cairn/cluster.yaml" "$BASE_PORT" "$CAIRN_PORT" "${ROUTER_YAML:-}" "${ENGINE:-}" <<'PY'
import sys
f, base, resp, router, engine = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
node = lambda i, p: f'  - {{id: "{i}", host: "127.0.0.1", raftPort: {p}, adminPort: {p + 1}}}\n'
snode = lambda i, p: f'  - {{id: "{i}", host: "127.0.0.1", raftPort: {p}, adminPort: {p + 1}, dataPort: {p + 2}}}\n'
y = f'bucketCount: 3000\ndataDir: "."\ncoordinators:\n{node("c1", base)}replicasets:\n'
port = base + 10
for r in (1, 2):
    y += f'- id: "rs{r}"\n  weight: 1\n  nodes:\n'
    for n in (1, 2, 3):
        y += '  ' + snode(f"s{r}-{n}", port); port += 3
y += f'routers:\n  - {{id: "r1", host: "127.0.0.1", respPort: {resp}, adminPort: {base + 2}}}\n'
if router: y += f'router: {router}\n'
if engine: y += f'storage: {{engine: {engine}}}\n'
open(f, 'w').write(y)
PY
fi
"$ROOT/cairn" up --dir "$WORK/cairn" --port "$CAIRN_PORT" --base-port "$BASE_PORT" >"$WORK/cairn.out" 2>"$WORK/cairn.err" &
PIDS+=($!)
CAIRN_PID=$!   # the cairn script execs java, so this is the JVM
for _ in $(seq 1 180); do grep -q "cairn is up" "$WORK/cairn.out" 2>/dev/null && break; sleep 1; done
grep -q "cairn is up" "$WORK/cairn.out" || { echo "cairn did not start; see $WORK/cairn.err"; tail -20 "$WORK/cairn.err"; exit 1; }

rps() { # port test pipeline requests -> requests per second
  # timeout: redis-benchmark spins at 100 % CPU forever when its server goes away
  timeout 600 redis-benchmark -p "$1" -t "$2" -P "$3" -n "$4" -c 50 -d 100 -r 100000 --csv 2>/dev/null \
    | awk -F'","' 'NR > 1 {gsub(/"/,"",$2); v = $2} END {print v}'   # the last line: lrange_100 and spop fill first
}
# The JIT needs long: one cluster went 860 -> 1,700 -> 2,070 -> 2,680 -> 2,790 SET/s over five
# runs of 30,000 SETs (C2 used 38 s of CPU in its first 2.5 minutes); half of N measured the JIT.
echo "warming up (JIT) ..."
rps "$CAIRN_PORT" set 1 $((3 * N)) >/dev/null; rps "$CAIRN_PORT" get 1 "$N" >/dev/null
rps "$CAIRN_PORT" set 16 "$N" >/dev/null; rps "$REDIS_PORT" set 1 "$N" >/dev/null

# CPU time of Cairn's JVM per request: less sensitive than req/s to other load on a shared machine.
ticks() { awk '{print $14 + $15}' "/proc/$CAIRN_PID/stat"; }
printf "\n%-8s %-9s %14s %14s %8s %16s\n" test pipeline "redis req/s" "cairn req/s" ratio "cairn CPU ms/op"
for p in 1 16; do
  for t in $(echo "${TESTS:-set,get}" | tr ',' ' '); do
    r=$(rps "$REDIS_PORT" "$t" "$p" "$N"); t0=$(ticks); c=$(rps "$CAIRN_PORT" "$t" "$p" "$N"); t1=$(ticks)
    printf "%-8s %-9s %14s %14s %8s %16s\n" "$t" "$p" "$r" "$c" "$(python3 -c "print(f'{$c/$r:.2f}x')")" \
      "$(python3 -c "print(f'{($t1 - $t0) * 1000 / $(getconf CLK_TCK) / $N:.3f}')")"
  done
done

# One client, pipeline 1: the latency of a replicated SET (issue 20's aim: p50 under 1 ms), with
# redis-server (fsync every second) as the baseline.
lat() { # port -> "p50 p99" in ms of 5,000 SETs from one client
  timeout 600 redis-benchmark -p "$1" -t set -n 5000 -c 1 -d 100 -r 100000 --csv 2>/dev/null \
    | awk -F'","' 'NR==2 {gsub(/"/,"",$8); print $5 " " $7}'
}
read -r RP50 RP99 <<<"$(lat "$REDIS_PORT")"; read -r CP50 CP99 <<<"$(lat "$CAIRN_PORT")"
echo "one client SET latency: cairn p50 $CP50 ms, p99 $CP99 ms; redis-server p50 $RP50 ms, p99 $RP99 ms"

redis-cli -p "$CAIRN_PORT" info stats | python3 -c "
import sys; s = dict(l.strip().split(':', 1) for l in sys.stdin if ':' in l)
for rs in sorted({k.rsplit('_', 1)[1] for k in s if k.startswith('write_ops_')}):
    w = int(s['write_ops_' + rs]) / max(1, int(s['write_batches_' + rs])); r = int(s['read_ops_' + rs]) / max(1, int(s['read_batches_' + rs]))
    print(f'group commit {rs}: {w:.1f} writes per Raft entry, {r:.1f} reads per read batch')"
[ "$FAILOVER" = "1" ] || exit 0

# Failover: stop the leader of rs1 while writing to a key of rs1; time until a write succeeds
# again. Five rounds (each stopped leader is started again and given time to catch up).
KEY=$(python3 -c "
import zlib
for i in range(100000):
    k=f'failover-{i}'
    if 1 + zlib.crc32(k.encode()) % 3000 <= 1500: print(k); break")
echo
TIMES=()
for round in 1 2 3 4 5; do
  LEADER=$("$ROOT/cairn" status --dir "$WORK/cairn" --json | python3 -c "
import json,sys; s=json.load(sys.stdin); print([r for r in s['replicasets'] if r['id']=='rs1'][0]['leader'])")
  redis-cli -p "$CAIRN_PORT" set "$KEY" before >/dev/null
  "$ROOT/cairn" node stop "$LEADER" --dir "$WORK/cairn" >/dev/null
  T0=$(date +%s%N)
  until [ "$(redis-cli -p "$CAIRN_PORT" set "$KEY" after 2>/dev/null)" = "OK" ]; do
    if [ $(( ($(date +%s%N) - T0) / 1000000000 )) -ge 60 ]; then echo "failover round $round: writes to rs1 did not flow within 60 s"; exit 1; fi
  done
  T1=$(date +%s%N)
  MS=$(( (T1 - T0) / 1000000 )); TIMES+=("$MS")
  echo "failover round $round: writes to rs1 flowed again $MS ms after its leader $LEADER stopped"
  "$ROOT/cairn" node start "$LEADER" --dir "$WORK/cairn" >/dev/null
  sleep 5
done
printf '%s\n' "${TIMES[@]}" | sort -n | awk '{a[NR]=$1} END {print "failover median " a[int((NR+1)/2)] " ms, max " a[NR] " ms"}'
