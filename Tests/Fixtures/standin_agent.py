#!/usr/bin/env python3
"""A stand-in coding agent for the peek/reply end-to-end tests.

Runs in a tmux pane like Claude Code would: calls its hook (`hookctl notify`) as a child process, so
the hook records this process as the pane's agent; prints a numbered menu (or an input prompt);
switches the terminal to raw mode with bracketed paste on; and appends every byte it receives,
exactly as received, to --record. A digit selects a menu row at once; Up/Down move the cursor and
Enter selects its row; a bracketed paste is taken as one; Enter (CR) outside a paste submits.
--multi shows a multi-select question: a digit or Enter toggles a row, the unnumbered Submit row after
the options submits. --other adds the free-text row "Other": its digit focuses a text field that
takes the next paste, and Enter submits it. What was answered is printed and appended to
--record + ".answers", one line each. --ask-again asks the same question again after each answer (its
hooks run again: the tool's end, then the same question).
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
parser.add_argument("--agent", default="claude", help="the agent its hook says it is")
parser.add_argument("--payload", choices=["ask", "permission"], default="ask",
                    help="menu mode: AskUserQuestion's PreToolUse, or a permission_prompt Notification")
parser.add_argument("--multi", action="store_true", help="a multi-select question with a Submit row")
parser.add_argument("--other", action="store_true", help="add the free-text row Other")
parser.add_argument("--ask-again", action="store_true",
                    help="menu mode: once a row is chosen, the tool ends (PostToolUse) and the same question is asked again")
args = parser.parse_args()

options = args.options.split("|")
shown = (args.shown or args.options).split("|")
if args.other:
    shown.append("Other")

if args.banner:
    with open(args.banner, encoding="utf-8") as banner:
        sys.stdout.write(banner.read())
        sys.stdout.flush()

if args.mode == "menu" and args.payload == "permission":
    payload = {"hook_event_name": "Notification", "session_id": args.session, "cwd": os.getcwd(),
               "notification_type": "permission_prompt", "message": args.question}
elif args.mode == "menu":
    payload = {"hook_event_name": "PreToolUse", "session_id": args.session, "cwd": os.getcwd(),
               "tool_name": "AskUserQuestion",
               "tool_input": {"questions": [{"question": args.question, "header": "DB", "multiSelect": args.multi,
                                             "options": [{"label": o, "description": "use " + o} for o in options]}]}}
else:
    payload = {"hook_event_name": "Notification", "session_id": args.session, "cwd": os.getcwd(),
               "notification_type": "idle_prompt", "message": "Claude is waiting for your input"}


def hook(body):
    with open(args.record + ".hook.err", "ab") as errors:
        subprocess.run([args.hookctl, "notify", "--force", "--agent", args.agent], input=json.dumps(body).encode(),
                       stdout=subprocess.DEVNULL, stderr=errors, check=False)


hook(payload)

fd = sys.stdin.fileno()
tty.setraw(fd)
out = sys.stdout


def say(text):
    out.write(text)
    out.flush()


say("\x1b[?2004h")
mode = args.mode
cursor = 0
chosen = set()
rows = len(shown) + (1 if args.multi else 0)   # the Submit row is the last
other_text = b""


def draw(again=False):
    lines = [args.question]
    for index, label in enumerate(shown):
        box = ("[x] " if index in chosen else "[ ] ") if args.multi and label != "Other" else ""
        lines.append(("\u276f " if index == cursor else "  ") + f"{index + 1}. {box}{label}")
    if args.multi:
        lines.append(("\u276f " if cursor == len(shown) else "  ") + "Submit")
    lines.append("Enter to select \u00b7 \u2191/\u2193 to navigate \u00b7 Esc to cancel")
    if again:
        say(f"\x1b[{len(lines)}A\r\x1b[J")
    say("\r\n".join(lines) + "\r\n")


def answered(text):
    with open(args.record + ".answers", "a", encoding="utf-8") as answers:
        answers.write(text + "\n")
    say(text + "\r\n> ")


def pick(index):
    """A row chosen (digit, or Enter on the cursor's row)."""
    global mode, cursor
    if args.multi and index == len(shown):
        mode = "input"
        answered("Submitted: " + ", ".join(shown[i] for i in sorted(chosen)))
    elif shown[index] == "Other":
        mode = "other"
        cursor = index
        say("Other: ")
    elif args.multi:
        chosen.symmetric_difference_update({index})
        draw(again=True)
    else:
        mode = "input"
        answered("Selected: " + shown[index])
        if args.ask_again:
            hook(dict(payload, hook_event_name="PostToolUse", tool_response={"answers": {args.question: shown[index]}}))
            hook(payload)
            mode = "menu"
            cursor = 0
            draw()
            with open(args.record + ".asked", "a") as asked:
                asked.write("asked again\n")


if mode == "menu":
    draw()
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
            if mode == "other":
                other_text += pending[:end]
                say(pending[:end].decode("utf-8", "replace").replace("\n", " "))
            else:
                say(f"[pasted {end} bytes]")
            pending = pending[end + len(END):]
            in_paste = False
        elif pending.startswith(START):
            pending = pending[len(START):]
            in_paste = True
        elif pending[:3] in (b"\x1b[A", b"\x1b[B"):
            arrow, pending = pending[:3], pending[3:]
            if mode == "menu":
                cursor = (cursor + (1 if arrow == b"\x1b[B" else -1)) % rows
                draw(again=True)
        elif START.startswith(pending) and len(pending) < len(START):
            break   # the start of a marker: wait for the rest
        else:
            byte, pending = pending[:1], pending[1:]
            if mode == "menu" and byte.isdigit() and 1 <= int(byte) <= len(shown):
                pick(int(byte) - 1)
            elif mode == "menu" and byte == b"\r":
                pick(cursor)
            elif mode == "other" and byte == b"\r":
                mode = "input"
                answered("Other: " + other_text.decode("utf-8", "replace"))
            elif mode == "other":
                other_text += byte
                say(byte.decode("latin-1"))
            elif byte == b"\r" and mode == "input":
                if swallow:
                    swallow = False
                    continue
                submitted += 1
                say(f"\r\nSubmitted {submitted}\r\n> ")
