#!/usr/bin/env bash
# Checks the release archive (after mvn package or verify): unpacks it into a temporary folder, runs its
# launcher, starts a local cluster from it, writes and reads a key with redis-cli, and stops it with SIGTERM.
# Every step bounded; only the processes this script started are stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=$(ls cairn-server/target/cairn-*-dist.tar.gz)
work=$(mktemp -d)
pid=
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
tar xzf "$archive" -C "$work"
home=$(ls -d "$work"/cairn-*)
"$home/bin/cairn" --version
for f in deploy/systemd/cairn-coordinator@.service deploy/systemd/cairn-storage@.service deploy/systemd/cairn-router@.service \
         deploy/cluster.example.yaml deploy/docker/Dockerfile deploy/prometheus/cairn-rules.yml; do
  [[ -f "$home/$f" ]] || { echo "check-dist: $f missing from the archive" >&2; exit 1; }
done
# Ports below the kernel's ephemeral range, so that no outgoing connection holds one of them; a clash with
# another listener is tried again on other ports (at most three times).
ephemeral_low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
for attempt in 1 2 3; do
  port=$(( 10000 + RANDOM % (ephemeral_low - 10100) ))
  rm -rf "$work/data"
  "$home/bin/cairn" up --dir "$work/data" --port "$port" --base-port $(( port + 1 )) > "$work/up.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    grep -q "cairn is up" "$work/up.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  grep -q "cairn is up" "$work/up.log" && break
  if kill -0 "$pid" 2>/dev/null; then cat "$work/up.log" >&2; echo "check-dist: not up within 120 s" >&2; exit 1; fi
  pid=
  if [[ $attempt -lt 3 ]] && grep -qE "Address already in use| is in use" "$work/up.log"; then
    echo "check-dist: a port from $port on was taken; trying other ports" >&2
    continue
  fi
  cat "$work/up.log" >&2; echo "check-dist: cairn up exited" >&2; exit 1
done
[[ "$(redis-cli -p "$port" set dist-check ok)" == "OK" ]]
[[ "$(redis-cli -p "$port" get dist-check)" == "ok" ]]
kill -TERM "$pid"
for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
if kill -0 "$pid" 2>/dev/null; then echo "check-dist: cairn up did not stop within 60 s of SIGTERM" >&2; exit 1; fi
pid=
echo "check-dist: $(basename "$archive") unpacks, starts a cluster, serves, stops"
