#!/usr/bin/env python3
"""Shares of a server profile by kind of work, from `perf script` output.

Reads `perf script -F comm,tid,period,ip,sym,dso` (call graphs recorded with
`--call-graph dwarf`, inlined frames included) on stdin. Each sample is counted
(by its period) for the first frame, from the leaf towards the root, that names a
kind of work below; allocation and copies are thus counted for what called them.
Prints one line per kind, largest first, and a JSON object as the last line.
"""

import json
import re
import sys

# The kinds, each a pattern on a frame's symbol; a frame is tried against them in
# this order.
KINDS = [
    ("parsing (client JSON)", r"serde_json::de|catan_protocol::ws::parse|Deserialize(r)?>?::deserialize"),
    ("redaction and encoding (views, JSON out)", r"catan_engine::view|serde_json::ser|Serialize>::serialize|catan_server::room::state::outbox|format_escaped_str"),
    ("engine (rules)", r"catan_engine::"),
    ("store (sqlx, SQLite, PostgreSQL)", r"sqlx|sqlite3|catan_server::store|^wal|^pager|jsonTranslate|Vdbe|Btree|postgres"),
    ("socket work (WebSocket frames, HTTP, TCP, syscalls)",
     r"tungstenite|axum::extract::ws|tokio::net|tokio::runtime::io|mio::|hyper::|catan_server::ws::|catan_server::listen|"
     r"tcp_|sock_|inet_|ip_|skb|__sys_send|__sys_recv|sys_sendto|sys_recvfrom|epoll|netif|net_rx|dev_queue|__x64_sys_(read|write|sendto|recvfrom)"),
    ("room task (validation, sequencing, fan-out)", r"catan_server::room|catan_server::bot"),
    ("runtime (tasks, channels, timers, wake-ups)", r"tokio::|futures_util|futures_core|tokio_util|finish_task_switch|futex|schedule|__switch_to|pick_next"),
]
COMPILED = [(name, re.compile(p)) for name, p in KINDS]
OTHER = "other"


def kind_of(frames):
    for sym in frames:
        for name, pattern in COMPILED:
            if pattern.search(sym):
                return name
    return OTHER


def samples(lines):
    period, frames = None, []
    for line in lines:
        if not line.strip():
            if period is not None:
                yield period, frames
            period, frames = None, []
            continue
        if not line.startswith(("\t", " ")):
            parts = line.split()
            try:
                period = int(parts[-1])
            except (ValueError, IndexError):
                period = 1
            frames = []
            continue
        # "\t  addr symbol (dso)"
        body = line.strip().split(" ", 1)
        if len(body) == 2:
            frames.append(re.sub(r" \((?:[^()]*)\)$", "", body[1]))
    if period is not None:
        yield period, frames


def main():
    totals, count = {}, 0
    for period, frames in samples(sys.stdin):
        k = kind_of(frames)
        totals[k] = totals.get(k, 0) + period
        count += 1
    whole = sum(totals.values()) or 1
    shares = {k: round(100.0 * v / whole, 1) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}
    for k, v in shares.items():
        print(f"{v:5.1f}%  {k}")
    print(f"({count} samples)")
    print(json.dumps({"samples": count, "shares": shares}))


if __name__ == "__main__":
    main()
