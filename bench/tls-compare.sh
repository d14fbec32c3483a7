#!/usr/bin/env bash
# The cost of TLS on the RESP port (issue 26): the same `cairn up` cluster (2 replicasets x 3 members),
# started alternately without and with security.tlsCertFile/tlsKeyFile, redis-benchmark SET and GET at
# pipeline 1 and 16 against each; prints requests/s and the ratio TLS / plain per round, as this machine is
# shared and absolute figures drift.
#
#   bench/tls-compare.sh [requests-per-test] [rounds]     (defaults 50000, 2)
#
# Needs redis-benchmark built with TLS (Debian's redis-tools is) and openssl.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-50000}"
ROUNDS="${2:-2}"
WORK="$(mktemp -d /tmp/cairn-tls.XXXXXX)"
PORT="${CAIRN_PORT:-7691}"
BASE_PORT="${BASE_PORT:-7700}"
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/ca.key" -out "$WORK/ca.pem" -days 2 -subj /CN=bench-ca 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$WORK/router.key" -out "$WORK/router.csr" -subj /CN=127.0.0.1 2>/dev/null
echo "subjectAltName=IP:127.0.0.1" > "$WORK/ext"
openssl x509 -req -in "$WORK/router.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -out "$WORK/router.pem" -days 2 \
  -extfile "$WORK/ext" 2>/dev/null

start() { # $1: plain|tls
  if [ "$1" = tls ] && ! grep -q tlsCertFile "$WORK/cairn/cluster.yaml"; then
    printf 'security: {tlsCertFile: %s, tlsKeyFile: %s}\n' "$WORK/router.pem" "$WORK/router.key" >> "$WORK/cairn/cluster.yaml"
  elif [ "$1" = plain ] && [ -f "$WORK/cairn/cluster.yaml" ]; then
    sed -i '/^security:/d' "$WORK/cairn/cluster.yaml"
  fi
  "$ROOT/cairn" up --dir "$WORK/cairn" --port "$PORT" --base-port "$BASE_PORT" >"$WORK/up.out" 2>"$WORK/up.err" &
  PID=$!
  for _ in $(seq 1 180); do grep -q "cairn is up" "$WORK/up.out" 2>/dev/null && return; sleep 1; done
  echo "cairn did not start"; tail -20 "$WORK/up.err"; exit 1
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; : > "$WORK/up.out"; }
rps() { # $1: test, $2: pipeline, rest: tls flags
  local t=$1 p=$2; shift 2
  redis-benchmark -p "$PORT" "$@" -t "$t" -n "$N" -c 50 -P "$p" -r 100000 -q 2>/dev/null | tr '\r' '\n' | grep -i "^$t:" | tail -1 | awk '{print $2}'
}
bench() { # $1: plain|tls
  local flags=()
  [ "$1" = tls ] && flags=(--tls --cacert "$WORK/ca.pem")
  for p in 1 16; do for t in set get; do echo "$t p$p $(rps $t $p "${flags[@]}")"; done; done
}

for r in $(seq 1 "$ROUNDS"); do
  start plain; bench plain > "$WORK/plain.$r"; stop
  start tls; bench tls > "$WORK/tls.$r"; stop
  echo "round $r: test, plain req/s, TLS req/s, TLS / plain"
  paste "$WORK/plain.$r" "$WORK/tls.$r" | awk '{printf "  %-4s %-4s %10.0f %10.0f %6.2fx\n", $1, $2, $3, $6, ($3 > 0 ? $6 / $3 : 0)}'
done
