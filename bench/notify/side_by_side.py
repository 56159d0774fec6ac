#!/usr/bin/env python3
"""This build's notify against another build's (BASELINE=path/to/hookctl, e.g. main's release binary)
and a bare curl POST, interleaved in one run, so a change's cost is measured apart from machine load.
Run after `swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -s` (as install.sh builds): BASELINE=/path/hookctl python3 bench/notify/side_by_side.py
(BASELINE_BEFORE_QUIET=1 for a baseline built before the repeat rule, whose config has no `defaults.quiet`.)
"""
import json, os, shutil, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from timing import measure, report  # noqa: E402
import bench  # noqa: E402

baseline = os.environ.get("BASELINE")
if not baseline:
    raise SystemExit("set BASELINE to another build's hookctl binary")
work = tempfile.mkdtemp(prefix="hookctl-side-")
process, port, _ = bench.start_receiver(work, "204")
try:
    homes = {}
    for name in ["baseline", "this"]:
        homes[name] = os.path.join(work, name)
        os.makedirs(homes[name])
        # A baseline from before the repeat rule does not know `defaults.quiet`: BASELINE_BEFORE_QUIET=1 leaves it
        # out of the baseline's config (that build has no repeat rule, so it pushes every run anyway).
        before_quiet = name == "baseline" and os.environ.get("BASELINE_BEFORE_QUIET") == "1"
        bench.write_config(homes[name], [port], quiet=not before_quiet)
    payload = os.path.join(work, "stop.json")
    with open(payload, "w") as f:
        json.dump({"session_id": "c2080807", "cwd": "/home/u/proj", "hook_event_name": "Stop",
                   "last_assistant_message": "All tests pass. **Done**."}, f)
    body = os.path.join(work, "body.json")
    with open(body, "w") as f:
        json.dump({"title": "t", "body": "b", "priority": "normal", "sessionRef": "", "hostRef": "h"}, f)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "SSHIDO_SESSION": "1", "HOOKCTL_NO_BACKGROUND": "1", "LANG": "C.UTF-8"}
    commands = {
        "baseline notify": ["env", f"HOME={homes['baseline']}", baseline, "notify", "--agent", "claude", "--strict"],
        "this notify": ["env", f"HOME={homes['this']}", bench.BINARY, "notify", "--agent", "claude", "--strict"],
        "bare curl POST": ["env", "curl", "-fsS", "-m", "5", "-X", "POST", "-H", "Content-Type: application/json",
                           "-d", "@" + body, f"http://127.0.0.1:{port}/n/0123456789abcdef0"],
    }
    medians = report(measure(commands, runs=int(os.environ.get("RUNS", "200")), stdin_file=payload, env=env), [])
    curl = medians["bare curl POST"]
    print(f"  baseline/curl {medians['baseline notify']/curl:.3f}   this/curl {medians['this notify']/curl:.3f}   "
          f"this/baseline {medians['this notify']/medians['baseline notify']:.3f}")
finally:
    process.kill()
    shutil.rmtree(work, ignore_errors=True)
