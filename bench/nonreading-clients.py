#!/usr/bin/env python3
"""Resident memory of a Cairn process under clients that pipeline GETs and never read (issue 28).

Usage: nonreading-clients.py PORT PID [--clients 100] [--gets 100] [--value-bytes 100000] [--seconds 30]

Stores one value, opens --clients connections that each send --gets pipelined GETs of it and never
read a reply, and samples the process's VmRSS (and a second client's PING + GET round trip) once a
second for --seconds. Everything is bounded: the sends are non-blocking with a deadline, and all
sockets are closed at the end. Prints one line per sample and a summary.
"""
import argparse
import socket
import time


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return -1


def encode(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_reply(sock, f):
    line = f.readline()
    if not line:
        raise EOFError("closed")
    if line[:1] == b"$":
        n = int(line[1:])
        if n >= 0:
            f.read(n + 2)
    return line[:1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("pid", type=int)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--gets", type=int, default=100)
    p.add_argument("--value-bytes", type=int, default=100_000)
    p.add_argument("--seconds", type=int, default=30)
    a = p.parse_args()

    probe = socket.create_connection(("127.0.0.1", a.port), timeout=30)
    pf = probe.makefile("rb")
    probe.sendall(encode("SET", "bench:big", b"x" * a.value_bytes))
    assert read_reply(probe, pf) == b"+"
    time.sleep(1)
    base = rss_mb(a.pid)
    print(f"before clients: RSS {base:.0f} MB")

    request = encode("GET", "bench:big") * a.gets
    socks = []
    for _ in range(a.clients):
        s = socket.create_connection(("127.0.0.1", a.port), timeout=10)
        s.setblocking(False)
        socks.append([s, memoryview(request)])
    peak = base
    worst_rtt = 0.0
    closed = 0
    deadline = time.time() + a.seconds
    while time.time() < deadline:
        for entry in socks:  # push what the kernel takes, never block, never read
            s, rest = entry
            if rest is None or len(rest) == 0:
                continue
            try:
                n = s.send(rest)
                entry[1] = rest[n:]
            except BlockingIOError:
                pass
            except OSError:
                entry[1] = None
                closed += 1
        rss = rss_mb(a.pid)
        peak = max(peak, rss)
        t0 = time.time()
        try:
            probe.sendall(encode("PING") + encode("GET", "bench:big"))
            read_reply(probe, pf)
            read_reply(probe, pf)
            rtt = (time.time() - t0) * 1000
        except (OSError, EOFError) as e:
            rtt = float("nan")
            print("probe failed:", e)
        worst_rtt = max(worst_rtt, rtt) if rtt == rtt else worst_rtt
        unsent = sum(len(r) for _, r in socks if r is not None)
        print(f"t={a.seconds - (deadline - time.time()):5.1f}s RSS {rss:7.0f} MB  probe PING+GET {rtt:7.1f} ms  request bytes unsent {unsent}")
        time.sleep(1)
    for s, _ in socks:
        s.close()
    print(f"summary: clients={a.clients} gets={a.gets} value={a.value_bytes}B baseline={base:.0f} MB peak={peak:.0f} MB "
          f"growth={peak - base:.0f} MB worst probe={worst_rtt:.0f} ms")
    probe.close()


if __name__ == "__main__":
    main()
