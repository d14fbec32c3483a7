#!/usr/bin/env bash
# The cost of TLS (issue 26): the same `cairn up` cluster (2 replicasets x 3 members), started in turn
# plain, with TLS on the RESP port (security.tlsCertFile/tlsKeyFile) and, with VARIANTS naming "internal",
# with cluster-internal TLS only (security.internalTls: Raft transport, data plane, coordinator, admin;
# RESP plain); redis-benchmark SET and GET against each; prints requests/s and the ratio to plain per
# round, as this machine is shared and absolute figures drift.
#
#   bench/tls-compare.sh [requests-per-test] [rounds]     (defaults 50000, 2)
#   VARIANTS="plain tls internal" PIPELINES="1 16"        (defaults "plain tls", "1 16")
#   CAIRN_JAVA_OPTS=-Dcairn.dataPlane.inProcess=false      routers reach the members over sockets, as on
#                                                          separate hosts (cairn up runs all in one JVM)
#
# Needs redis-benchmark built with TLS (Debian's redis-tools is) and openssl.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-50000}"
ROUNDS="${2:-2}"
VARIANTS="${VARIANTS:-plain tls}"
PIPELINES="${PIPELINES:-1 16}"
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
# the processes' certificate for internal TLS: PKCS#8 key (openssl req -nodes writes one), signed by the same CA
openssl req -newkey rsa:2048 -nodes -keyout "$WORK/node.key" -out "$WORK/node.csr" -subj /CN=cairn-node 2>/dev/null
openssl x509 -req -in "$WORK/node.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -out "$WORK/node.pem" -days 2 \
  -extfile "$WORK/ext" 2>/dev/null

start() { # $1: plain|tls|internal
  [ -f "$WORK/cairn/cluster.yaml" ] && sed -i '/^security:/d' "$WORK/cairn/cluster.yaml"
  if [ "$1" = tls ]; then
    printf 'security: {tlsCertFile: %s, tlsKeyFile: %s}\n' "$WORK/router.pem" "$WORK/router.key" >> "$WORK/cairn/cluster.yaml"
  elif [ "$1" = internal ]; then
    printf 'security: {internalTls: {certFile: %s, keyFile: %s, caFile: %s}}\n' "$WORK/node.pem" "$WORK/node.key" "$WORK/ca.pem" \
      >> "$WORK/cairn/cluster.yaml"
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
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }  # the cluster JVM's CPU time (the cairn script execs java)
bench() { # $1: plain|tls|internal -> "test pipeline req/s cpu-us-per-request" lines
  local flags=()
  [ "$1" = tls ] && flags=(--tls --cacert "$WORK/ca.pem")
  rps set 1 "${flags[@]}" >/dev/null  # warm-up (JIT): the first requests of a fresh JVM cost several times more
  for p in $PIPELINES; do for t in set get; do
    local t0 r t1; t0=$(ticks); r=$(rps $t $p "${flags[@]}"); t1=$(ticks)
    echo "$t p$p $r $(python3 -c "print(f'{($t1 - $t0) * 1e6 / $(getconf CLK_TCK) / $N:.0f}')")"
  done; done
}

for r in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do start "$v"; bench "$v" > "$WORK/$v.$r"; stop; done
  for v in $VARIANTS; do
    [ "$v" = plain ] && continue
    echo "round $r: test, plain req/s, $v req/s, $v / plain; CPU us per request plain, $v, $v / plain (less sensitive to other load)"
    paste "$WORK/plain.$r" "$WORK/$v.$r" | awk '{printf "  %-4s %-4s %10.0f %10.0f %6.2fx   %6.0f %6.0f %6.2fx\n", $1, $2, $3, $7, ($3 > 0 ? $7 / $3 : 0), $4, $8, ($4 > 0 ? $8 / $4 : 0)}'
  done
done
