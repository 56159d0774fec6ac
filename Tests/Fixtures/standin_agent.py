#!/usr/bin/env python3
"""A stand-in coding agent for the peek/reply end-to-end tests.

Runs in a tmux pane like Claude Code would: calls its hook (`hookctl notify`) as a child process, so
the hook records this process as the pane's agent; prints a numbered menu (or an input prompt);
switches the terminal to raw mode with bracketed paste on; and appends every byte it receives,
exactly as received, to --record. A digit selects a menu row at once; a bracketed paste is taken
as one; Enter (CR) outside a paste submits.
"""
import argparse, json, os, subprocess, sys, tty

parser = argparse.ArgumentParser()
parser.add_argument("--record", required=True)
parser.add_argument("--hookctl", required=True)
parser.add_argument("--session", required=True)
parser.add_argument("--question", default="Which database?")
parser.add_argument("--options", default="Postgres (Recommended)|SQLite|MySQL", help="as the hook payload lists them")
parser.add_argument("--shown", default=None, help="as the pane shows them (default: the same)")
parser.add_argument("--mode", choices=["menu", "input"], default="menu")
parser.add_argument("--banner", default=None, help="a file printed before anything else")
parser.add_argument("--swallow-first-enter", action="store_true", help="ignore the first Enter (a lost Enter)")
args = parser.parse_args()

options = args.options.split("|")
shown = (args.shown or args.options).split("|")

if args.banner:
    with open(args.banner, encoding="utf-8") as banner:
        sys.stdout.write(banner.read())
        sys.stdout.flush()

if args.mode == "menu":
    payload = {"hook_event_name": "PreToolUse", "session_id": args.session, "cwd": os.getcwd(),
               "tool_name": "AskUserQuestion",
               "tool_input": {"questions": [{"question": args.question, "header": "DB", "multiSelect": False,
                                             "options": [{"label": o, "description": "use " + o} for o in options]}]}}
else:
    payload = {"hook_event_name": "Notification", "session_id": args.session, "cwd": os.getcwd(),
               "notification_type": "idle_prompt", "message": "Claude is waiting for your input"}
with open(args.record + ".hook.err", "ab") as errors:
    subprocess.run([args.hookctl, "notify", "--force", "--agent", "claude"], input=json.dumps(payload).encode(),
                   stdout=subprocess.DEVNULL, stderr=errors, check=False)

fd = sys.stdin.fileno()
tty.setraw(fd)
out = sys.stdout


def say(text):
    out.write(text)
    out.flush()


say("\x1b[?2004h")
mode = args.mode
if mode == "menu":
    say(args.question + "\r\n")
    for index, label in enumerate(shown, 1):
        say(("\u276f " if index == 1 else "  ") + f"{index}. {label}\r\n")
    say("Enter to select \u00b7 \u2191/\u2193 to navigate \u00b7 Esc to cancel\r\n")
else:
    say("> ")
open(args.record, "ab").close()   # ready: the hook has run

START, END = b"\x1b[200~", b"\x1b[201~"
pending = b""
in_paste = False
swallow = args.swallow_first_enter
submitted = 0
while True:
    data = os.read(fd, 4096)
    if not data:
        break
    with open(args.record, "ab") as record:
        record.write(data)
    pending += data
    while pending:
        if in_paste:
            end = pending.find(END)
            if end < 0:
                break
            say(f"[pasted {end} bytes]")
            pending = pending[end + len(END):]
            in_paste = False
        elif pending.startswith(START):
            pending = pending[len(START):]
            in_paste = True
        elif START.startswith(pending) and len(pending) < len(START):
            break   # the start of a marker: wait for the rest
        else:
            byte, pending = pending[:1], pending[1:]
            if mode == "menu" and byte.isdigit() and 1 <= int(byte) <= len(shown):
                say(f"Selected: {shown[int(byte) - 1]}\r\n> ")
                mode = "input"
            elif byte == b"\r" and mode == "input":
                if swallow:
                    swallow = False
                    continue
                submitted += 1
                say(f"\r\nSubmitted {submitted}\r\n> ")
