"""What the benchmarks share besides timing: where the repository and the release binary are, the loopback
receiver (Tests/Fixtures/receiver.py) they send to, and the clean-up of a run's servers and work folder."""
import os, shutil, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("HOOKCTL", os.path.join(ROOT, ".build", "release", "hookctl"))
RECEIVER = os.path.join(ROOT, "Tests", "Fixtures", "receiver.py")


def start_receiver(log, responses, lifetime, extra=()):
    """Starts a receiver that logs each request to `log` and answers `responses`; returns (process, port)."""
    process = subprocess.Popen([sys.executable, RECEIVER, "--log", log, "--responses", responses,
                                "--lifetime", str(lifetime), *extra], stdout=subprocess.PIPE, text=True)
    return process, int(process.stdout.readline())


def clean_up(servers, work):
    """Stops the receivers a run started and removes its work folder."""
    for server in servers:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)
