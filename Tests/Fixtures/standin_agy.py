#!/usr/bin/env python3
"""A stand-in Antigravity CLI (`agy`) for the end-to-end tests: it loads ~/.gemini/config/hooks.json the
way agy 1.1.26/1.1.27 was measured to (stbenjam/skillsaw docs/rules/antigravity-hooks-valid.md; a
2026-09-05 agy 1.1.27 probe): top-level keys are hook names, each an object of "enabled" and event
keys; a lifecycle event (SessionStart, PreInvocation, PostInvocation, Stop) holds a list of handler
objects, a tool event (PreToolUse, PostToolUse) a list of matcher groups; anything else refuses the
whole file ("failed to parse hooks.json", nothing runs). Unknown events are dropped.

  agy --version                   prints a version
  agy -p /hooks                   lists the handlers it loaded, one `EVENT  COMMAND` line each (the real
                                  agy's format is not documented; doctor only looks for the event name
                                  and hookctl's script on one line), or the parse error, exit 3
  agy fire EVENT PAYLOAD_JSON     runs every enabled handler of EVENT with the payload on stdin, the
                                  command split into words (no shell), checks its stdout is empty or a
                                  JSON object (agy parses it as protojson), exits 3 when the file was refused
"""
import json, os, shlex, subprocess, sys

LIFECYCLE = {"SessionStart", "PreInvocation", "PostInvocation", "Stop"}
TOOL = {"PreToolUse", "PostToolUse"}


def load():
    path = os.path.join(os.environ["HOME"], ".gemini", "config", "hooks.json")
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        root = json.load(handle)
    if not isinstance(root, dict):
        raise ValueError("top level is not an object")
    hooks = {}
    for name, block in root.items():
        if not isinstance(block, dict):
            raise ValueError(f"cannot unmarshal {type(block).__name__} into Go struct field .{name} of type jsonhook.JSONHookSpec")
        if block.get("enabled", True) is False:
            continue
        for event, value in block.items():
            if event == "enabled":
                continue
            if value is None:
                continue
            if not isinstance(value, list):
                raise ValueError(f"{name}.{event} is not a list")
            for item in value:
                if not isinstance(item, dict):
                    raise ValueError(f"{name}.{event}: not an object")
                if event in LIFECYCLE:
                    if "hooks" in item or "matcher" in item or item.get("type", "command") != "command":
                        raise ValueError(f"{name}.{event}: lifecycle events take handlers")
                    hooks.setdefault(event, []).append(item)
                elif event in TOOL:
                    for handler in item.get("hooks", []):
                        hooks.setdefault(event, []).append(handler)
    return hooks


def main():
    if sys.argv[1:] == ["--version"]:
        print("agy 1.1.27")
        return 0
    if sys.argv[1:] == ["-p", "/hooks"]:
        try:
            hooks = load()
        except (ValueError, json.JSONDecodeError) as error:
            print(f"failed to parse hooks.json: {error}")
            return 3
        print(f"loaded {sum(len(v) for v in hooks.values())} hooks")
        for event, handlers in hooks.items():
            for handler in handlers:
                print(f"{event}  {handler.get('command', '')}")
        return 0
    if len(sys.argv) != 4 or sys.argv[1] != "fire":
        print(__doc__, file=sys.stderr)
        return 64
    try:
        hooks = load()
    except (ValueError, json.JSONDecodeError) as error:
        print(f"failed to parse hooks.json: {error}", file=sys.stderr)
        return 3
    event, payload = sys.argv[2], sys.argv[3]
    for handler in hooks.get(event, []):
        result = subprocess.run(shlex.split(handler["command"]), input=payload.encode(), capture_output=True,
                                timeout=handler.get("timeout", 30))
        out = result.stdout.decode().strip()
        if out and not out.startswith("{"):
            print(f"failed to unmarshal result from hook via protojson: {out[:40]!r}", file=sys.stderr)
            return 4
    return 0


sys.exit(main())
