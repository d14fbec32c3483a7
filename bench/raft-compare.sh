#!/usr/bin/env bash
# Raft engines side by side (issue 20, docs/raft-engines.md): the same three-member group, the same
# RocksDB apply and the same durability (an entry is acknowledged after a majority forced it to disk)
# for each engine, in one JVM and in three processes. Prints entries/s, writes/s, CPU per entry and
# per write (summed over the members), p50/p99 commit latency, with 1 and 64 proposers.
#
#   bench/raft-compare.sh                                   (every engine, both placements, ~25 min;
#                                                            engines: ratis ratis-tuned ratis-netty sofajraft microraft jgroups-raft)
#   bench/raft-compare.sh --engines ratis,microraft --placements jvm --seconds 5 --warmup-seconds 5
#
# Other options: --writes 1,20,200  --proposers 1,64  --dir D (default a fresh folder under /tmp).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/cairn-raftbench/target/cairn-raftbench-0.1.0-SNAPSHOT.jar"
if [[ ! -f "$JAR" || -n "$(find "$ROOT/cairn-raftbench/src/main" "$ROOT/cairn-raftbench/pom.xml" -newer "$JAR" -print -quit)" ]]; then
  (cd "$ROOT" && mvn -q -B -pl cairn-raftbench -am install -DskipTests) >&2
fi
WORK="$(mktemp -d /tmp/cairn-raftbench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
java -Xmx3g -Djava.util.concurrent.ForkJoinPool.common.parallelism=4 \
  -cp "$JAR:$ROOT/cairn-raftbench/target/lib/*" io.cairn.raftbench.RaftBench --dir "$WORK" "$@"
