"""Side-by-side command timing for hookctl's benchmarks: interleaved runs, medians, ratios.

Each round runs every command once, in turn, so machine noise hits all of them alike.
"""
import os, statistics, subprocess, time


def measure(commands, runs=200, warmup=10, stdin_file=None, env=None):
    """commands: {name: argv}. Returns {name: [seconds...]}."""
    samples = {name: [] for name in commands}
    for round_index in range(warmup + runs):
        for name, argv in commands.items():
            stdin = open(stdin_file, "rb") if stdin_file else subprocess.DEVNULL
            start = time.perf_counter()
            result = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            elapsed = time.perf_counter() - start
            if stdin_file:
                stdin.close()
            if result.returncode != 0:
                raise SystemExit(f"{name} failed with {result.returncode}: {result.stderr.decode()[:500]}")
            if round_index >= warmup:
                samples[name].append(elapsed)
    return samples


def report(samples, baseline_names):
    medians = {name: statistics.median(values) for name, values in samples.items()}
    width = max(len(name) for name in samples)
    for name, values in samples.items():
        print(f"  {name:<{width}}  median {medians[name]*1000:8.2f} ms   p90 {sorted(values)[int(len(values)*0.9)]*1000:8.2f} ms   (n={len(values)})")
    return medians


def timed_run(argv, env, data=None, cpu=None, key=None):
    """Wall time of one run (`data` on its stdin); its user + system CPU (the whole process tree it waited
    for, rusage) is appended to cpu[key] when both are given."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if data is not None:
        process.stdin.write(data)
    process.stdin.close()
    _, _, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - start
    if cpu is not None and key is not None:
        cpu.setdefault(key, []).append(usage.ru_utime + usage.ru_stime)
    return took
