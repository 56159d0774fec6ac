#!/usr/bin/env python3
"""Writes an hookctl event log with COUNT events, as `EventLog.append` would have left it:
events.N.jsonl … events.1.jsonl, events.jsonl, each at most MAX_SIZE bytes, same line format.
The board state (board.state) is not written: the first `hookctl status` builds it from the log."""
import argparse, json, os, random, time, uuid

parser = argparse.ArgumentParser()
parser.add_argument("--count", type=int, required=True)
parser.add_argument("--state-dir", required=True)
parser.add_argument("--sessions", type=int, default=40)
parser.add_argument("--max-size", type=int, default=10 << 20)
parser.add_argument("--tmux-socket", default=None, help="record tmux panes on this socket")
parser.add_argument("--panes", default="", help="comma-separated pane ids to spread sessions over")
args = parser.parse_args()

random.seed(7)
agents = ["claude", "codex", "gemini"]
cycle = ["started", "working", "needs_input", "working", "done", "working", "done", "info", "failed", "working", "done"]
panes = [p for p in args.panes.split(",") if p]
now = time.time()
span = 2 * 86400
lines = []
position = [random.randrange(len(cycle)) for _ in range(args.sessions)]
words = "the build passes now and the migration is ready for review with two follow ups".split()
for seq in range(1, args.count + 1):
    s = random.randrange(args.sessions)
    kind = cycle[position[s] % len(cycle)]
    position[s] += 1
    agent = agents[s % len(agents)]
    t = now - span + span * seq / args.count
    event = {
        "id": str(uuid.uuid4()), "seq": seq,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000),
        "agent": agent, "kind": kind, "agent_event": {"done": "Stop", "needs_input": "Notification"}.get(kind, kind),
        "title": f"{agent} {kind}", "message": " ".join(random.choice(words) for _ in range(random.randint(5, 40))),
        "priority": "high" if kind in ("needs_input", "failed") else "normal", "host": "bench",
    }
    if panes:
        event["tmux"] = {"session": f"sshido-{s:08X}", "pane": panes[s % len(panes)], "socket": args.tmux_socket}
    event["cwd"] = f"/home/me/project-{s}"
    event["session_id"] = f"session-{s}"
    lines.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n")

os.makedirs(args.state_dir, exist_ok=True)
chunks, current, size = [], [], 0
for line in reversed(lines):
    length = len(line.encode())
    if current and size + length > args.max_size:
        chunks.append(current)
        current, size = [], 0
    current.append(line)
    size += length
chunks.append(current)
for number, chunk in enumerate(chunks):
    name = "events.jsonl" if number == 0 else f"events.{number}.jsonl"
    with open(os.path.join(args.state_dir, name), "w") as f:
        f.writelines(reversed(chunk))
print(f"{args.count} events in {len(chunks)} files")
