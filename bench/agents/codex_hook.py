#!/usr/bin/env python3
"""The Codex hook path against `hookctl --version`, side by side: one shuffled loop runs, per round,
`hookctl --version`, `hookctl notify --agent codex` with a Stop payload (stdin), with a PermissionRequest
payload (stdin), and Codex's legacy `notify` (the JSON as the last argument, as Codex 0.163.0 runs
it), each in a home where hookctl's Codex hooks are set up and trusted (so notify reads Codex's trust
table: the CodexNotify rule). Wall time median and user+sys CPU mean (rusage), and their ratios to
--version. No thresholds: the numbers are reported (the target is <= 1.5x).
Run: python3 bench/agents/codex_hook.py [HOOKCTL]   (RUNS=… rounds, default 40; default binary .build/debug/hookctl)
"""
import json, os, random, statistics, subprocess, sys, tempfile, time
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "delivery"))
sys.path.insert(0, os.path.join(here, "..", "lib"))
from bench import make_home, env_for, receiver, stop_senders, TOKEN
import loopback

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", ".build", "debug", "hookctl")
RUNS = int(os.environ.get("RUNS", "40"))
work = tempfile.mkdtemp(prefix="hookctl-bench-codex-")
relay, port, _ = receiver(work, "relay")
home = make_home(work, "codex", f"http://127.0.0.1:{port}/n/{TOKEN}")
env = env_for(home)
# hookctl's Codex hooks as setup writes them, and the trust table Codex writes once the user trusts them.
codex = os.path.join(home, ".codex")
os.makedirs(codex)
with open(os.path.join(codex, "config.toml"), "w") as f:
    f.write('model = "m"\n')
subprocess.run([binary, "setup", "--agents", "codex", "--quiet"], env=env, check=True, stdout=subprocess.DEVNULL)
hooks_path = os.path.join(codex, "hooks.json")
hooks = json.load(open(hooks_path))["hooks"]
def snake(name):
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(name))
with open(os.path.join(codex, "config.toml"), "a") as f:
    f.write("\n[hooks.state]\n")
    for event, groups in hooks.items():
        f.write(f'\n[hooks.state."{hooks_path}:{snake(event)}:0:0"]\ntrusted_hash = "sha256:00"\n')

def stop(n):
    return json.dumps({"session_id": "01a23c0e-15e6-7772-9ec3-fdb6967f083a", "turn_id": f"turn-{n}", "transcript_path": None,
                       "cwd": "/home/u/proj", "hook_event_name": "Stop", "model": "gpt-5.1-codex", "permission_mode": "default",
                       "stop_hook_active": False, "last_assistant_message": f"All tests pass ({n})."}).encode()
def permission(n):
    return json.dumps({"session_id": "01a23c0e-15e6-7772-9ec3-fdb6967f083a", "turn_id": f"turn-{n}", "transcript_path": None,
                       "cwd": "/home/u/proj", "hook_event_name": "PermissionRequest", "model": "gpt-5.1-codex",
                       "permission_mode": "default", "tool_name": "Bash",
                       "tool_input": {"command": f"touch /tmp/x{n}", "description": "Create the marker"}}).encode()
def legacy(n):
    return json.dumps({"type": "agent-turn-complete", "thread-id": "01a23c0e-15e6-7772-9ec3-fdb6967f083a", "turn-id": f"turn-{n}",
                       "cwd": "/home/u/proj", "client": "codex-tui", "input-messages": ["run the tests"],
                       "last-assistant-message": f"All tests pass ({n})."})

def run(argv, data=None):
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if data is not None:
        process.stdin.write(data)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{argv[1:3]} exited {status}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

cells = ["version", "Stop", "PermissionRequest", "notify"]
wall = {c: [] for c in cells}
cpu = {c: [] for c in cells}
random.seed(32)
for round_ in range(RUNS + 3):
    order = list(cells); random.shuffle(order)
    n = round_ * 10
    for cell in order:
        if cell == "version":
            took = run([binary, "--version"])
        elif cell == "Stop":
            took = run([binary, "notify", "--agent", "codex"], stop(n))
        elif cell == "PermissionRequest":
            took = run([binary, "notify", "--agent", "codex"], permission(n + 1))
        else:
            took = run([binary, "notify", "--agent", "codex", legacy(n)])
        if round_ >= 3:
            wall[cell].append(took[0]); cpu[cell].append(took[1])
stop_senders(home)
loopback.clean_up([relay], work)
base_wall = statistics.median(wall["version"]); base_cpu = statistics.mean(cpu["version"])
print(f"Codex hook path vs hookctl --version ({binary}), {RUNS} interleaved rounds:")
for cell in cells:
    w = statistics.median(wall[cell]); c = statistics.mean(cpu[cell])
    print(f"  {cell:<18} wall median {w*1000:7.2f} ms ({w/base_wall:4.2f}x)   cpu mean {c*1000:7.2f} ms ({c/base_cpu:4.2f}x)")
