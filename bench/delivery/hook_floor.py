#!/usr/bin/env python3
"""What any hook written in Swift costs behind the agent's shell: the floor under issue 35's 1.5x.

Builds two programs that do the least a hook must do (read the payload from stdin, write it to a new file
in a temporary folder, remove it): one in Swift, compiled as hookctl is (`swiftc -O -static-stdlib`, no
Foundation), one in C (`gcc -O2`). Then times, interleaved and shuffled, against `hookctl --version`:
  - the Swift program alone, and the C program alone;
  - each behind the registered command's shape (`sh -c '[ -n "${SSHIDO_SESSION:-}" ] || exit 0; exec PROGRAM'`);
  - that shape with `hookctl --version` (the floor registered_command.py reports);
  - the real registered Claude Stop command is in registered_command.py, not here.
Medians of wall time and means of user+system CPU (rusage), as ratios to `--version`. No thresholds.
Run: python3 bench/delivery/hook_floor.py BINARY   (RUNS=..., default 100)
"""
import os, random, shutil, subprocess, sys, tempfile, time

BINARY = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", ".build", "release", "hookctl")
RUNS = int(os.environ.get("RUNS", "100"))
SWIFTC = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"

SWIFT = r'''
import Glibc
var buffer = [UInt8](repeating: 0, count: 65536)
var payload: [UInt8] = []
while true { let n = read(0, &buffer, 65536); if n <= 0 { break }; payload += buffer[0..<n] }
let path = "\(CommandLine.arguments[1])/entry.\(getpid())"
let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
if fd >= 0 { _ = payload.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }; close(fd); unlink(path) }
'''

C = r'''
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    static char payload[1 << 20];
    size_t size = 0; ssize_t n;
    while (size < sizeof payload && (n = read(0, payload + size, sizeof payload - size)) > 0) size += (size_t)n;
    char path[4096];
    snprintf(path, sizeof path, "%s/entry.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) { if (write(fd, payload, size) < 0) {} close(fd); unlink(path); }
    return 0;
}
'''


def run(argv, env, data):
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        process.stdin.write(data)
        process.stdin.close()
    except BrokenPipeError:
        pass
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main():
    work = tempfile.mkdtemp(prefix="hookctl-bench-floor-")
    try:
        with open(os.path.join(work, "hook.swift"), "w") as f:
            f.write(SWIFT)
        with open(os.path.join(work, "hook.c"), "w") as f:
            f.write(C)
        swift_hook, c_hook = os.path.join(work, "swift-hook"), os.path.join(work, "c-hook")
        subprocess.run([SWIFTC, "-O", "-static-stdlib", os.path.join(work, "hook.swift"), "-o", swift_hook + ".built"], check=True)
        subprocess.run(["gcc", "-O2", os.path.join(work, "hook.c"), "-o", c_hook + ".built"], check=True)
        # Copies, as the version binary is: a file as the linker left it faults more pages than a copy.
        for path in (swift_hook, c_hook):
            shutil.copy2(path + ".built", path)
        version = os.path.join(work, "hookctl")
        shutil.copy2(BINARY, version)
        spool = os.path.join(work, "spool")
        os.mkdir(spool)
        gate = '[ -n "${SSHIDO_SESSION:-}" ] || exit 0; exec '
        cells = {
            "hookctl --version": [version, "--version"],
            "Swift hook alone": [swift_hook, spool],
            "C hook alone": [c_hook, spool],
            "sh -c gate; exec hookctl --version": ["sh", "-c", gate + f"'{version}' --version"],
            "sh -c gate; exec Swift hook": ["sh", "-c", gate + f"'{swift_hook}' '{spool}'"],
            "sh -c gate; exec C hook": ["sh", "-c", gate + f"'{c_hook}' '{spool}'"],
        }
        env = {"PATH": "/usr/bin:/bin", "SSHIDO_SESSION": "1", "HOME": work}
        data = b'{"session_id":"c2080807-7e55-40ec-8134-9ec438bc5ec7","cwd":"/home/u/proj","hook_event_name":"Stop","last_assistant_message":"All tests pass. **Done**."}'
        wall = {k: [] for k in cells}
        cpu = {k: [] for k in cells}
        random.seed(35)
        for round_ in range(RUNS + 5):
            order = list(cells)
            random.shuffle(order)
            for key in order:
                took, used = run(cells[key], env, data)
                if round_ >= 5:
                    wall[key].append(took)
                    cpu[key].append(used)
        median = lambda values: sorted(values)[len(values) // 2]
        base_wall, base_cpu = median(wall["hookctl --version"]), sum(cpu["hookctl --version"]) / RUNS
        print(f"{RUNS} interleaved rounds; hookctl --version {base_wall * 1000:.2f} ms wall, {base_cpu * 1000:.2f} ms CPU; load {os.getloadavg()[0]:.2f}")
        for key in cells:
            print(f"  {key:<36} wall {median(wall[key]) / base_wall:5.2f}x   CPU {sum(cpu[key]) / RUNS / base_cpu:5.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
