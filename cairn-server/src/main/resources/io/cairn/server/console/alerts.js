// What each alert code means and what an operator does about it (docs/operations.md, "Monitoring").
// Keep in step with that table: a code missing here is shown with its text only.
"use strict";
const ALERT_HELP = {
  UNKNOWN_BUCKETS: {
    what: "The router knows no owner for some buckets: discovery has not found them yet, or no replicaset owns them. Requests for those keys wait, then fail.",
    todo: "Check that every replicaset has a leader (Topology). If one is down, start its members; if buckets stay unknown with all replicasets up, run `cairn bucket show ID` for one of them."
  },
  SUSPECTED_DOUBLED_BUCKETS: {
    what: "Two replicasets claim a bucket as writable. Requests go to the higher generation; writes are refused while the generations are equal.",
    todo: "Usually settles by itself within seconds (the replicasets verify and contain the stale copy). If it stays, see `cairn bucket doubled` (docs/doubled-buckets.md)."
  },
  DOUBLED_BUCKETS: {
    what: "A bucket is held by two replicasets; the stale copy is contained (READONLY: writes refused, reads served). On the coordinator: the replicasets own more than bucket_count buckets, and the rebalancer stops planning meanwhile.",
    todo: "List them with `cairn bucket doubled`, pick the copy to keep and run `cairn bucket resolve ID --keep RS` (docs/doubled-buckets.md)."
  },
  MISSING_BUCKETS: {
    what: "Bootstrap has finished, no move is in flight, and the replicasets own fewer than bucket_count buckets for three rounds: some replicaset lost its data.",
    todo: "Find the replicaset that lost buckets (Topology: bucket counts; `cairn status`) and restore it from a backup or its members' folders."
  },
  STALLED_MOVE: {
    what: "A bucket move has taken no step for 20 s. Either the copy waits on a very low rebalancer.maxBytesPerSecond, or an answer was lost (a bug). Other moves go on.",
    todo: "Check rebalancer.maxBytesPerSecond; otherwise report it with the coordinator leader's log (it logs what the move waits for)."
  },
  BOOTSTRAP_REFUSED: {
    what: "This replicaset's copy was wiped or replaced and may not re-create its initial buckets (they would be empty copies of data that existed).",
    todo: "Restore the replicaset's members from their folders or a backup; do not wipe every member of a replicaset at once."
  },
  REPLACED_DISK: {
    what: "A storage node came back on a new, wiped, damaged or older folder: it neither votes nor serves reads until it has caught up with its leader.",
    todo: "Usually nothing: it clears once the node caught up. If it stays, check the node's log and that its replicaset has a leader."
  },
  PROCESS_DOWN: {
    what: "A Cairn process does not answer on its admin port (seen by this console): stopped, crashed, or unreachable from the router.",
    todo: "Start it again (`cairn node start ID` in a local cluster; `cairn storage|coordinator --config FILE --node ID` elsewhere), or check the network between it and this router."
  },
  NO_LEADER: {
    what: "No member of a replicaset answers as its Raft leader: it is electing one, or fewer than a majority of its members are up. Its buckets cannot be written meanwhile.",
    todo: "Wait a few seconds for the election; if it stays, start the replicaset's down members until a majority is up."
  },
  NO_REBALANCER: {
    what: "No coordinator answers as the leader running the rebalancer: moves, drains and manual moves wait.",
    todo: "Start the coordinators until a majority of them is up (its log says which one leads)."
  },
  OTHER: {
    what: "An alert without a code, e.g. `replicaset X did not answer` (the rebalancer could not reach a replicaset's leader this round).",
    todo: "Read its text; a replicaset that did not answer usually has no leader at the moment (Topology)."
  }
};
