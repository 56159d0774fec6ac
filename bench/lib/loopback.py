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


def make_test_ca(folder):
    """Makes a test CA and a server certificate for 127.0.0.1 in `folder` (openssl); returns (ca, cert, key)."""
    os.makedirs(folder, exist_ok=True)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", f"{folder}/ca.key", "-out", f"{folder}/ca.pem", "-days", "2", "-subj", "/CN=hookctl bench CA"], **quiet)
    subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", f"{folder}/server.key", "-out", f"{folder}/server.csr", "-subj", "/CN=127.0.0.1"], **quiet)
    with open(f"{folder}/ext", "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    subprocess.run(["openssl", "x509", "-req", "-in", f"{folder}/server.csr", "-CA", f"{folder}/ca.pem", "-CAkey", f"{folder}/ca.key",
                    "-CAcreateserial", "-out", f"{folder}/server.pem", "-days", "2", "-extfile", f"{folder}/ext"], **quiet)
    return f"{folder}/ca.pem", f"{folder}/server.pem", f"{folder}/server.key"


def clean_up(servers, work):
    """Stops the receivers a run started and removes its work folder."""
    for server in servers:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)
