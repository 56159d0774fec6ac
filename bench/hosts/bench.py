#!/usr/bin/env python3
"""Benchmark: the board across hosts over real sshd servers on loopback, ratios side by side.

Five plain sshd processes (run as root, each with its own config, host key and port on 127.0.0.1;
`SetEnv HOME=` gives each "host" its own home with its own hookctl in ~/.local/bin and its own
recorded agents). The client has its own HOME, runtime folder and known_hosts (StrictHostKeyChecking=yes).

Each pair runs interleaved (bench/lib/timing.py: one of each per round):
  1. warm  `hookctl status --hosts` (5 hosts)  vs  `ssh host true` over the same warm master
  2. warm  `hookctl status --hosts`            vs  `ssh host hookctl status` five times in a row (plain ssh)
  3. cold  `hookctl status --hosts` (masters closed before each run)  vs  the slowest single
           plain `ssh host hookctl status --json` of the round (all five timed, the slowest kept)
  4. warm  `hookctl reply box2:%N --choice Yes`  vs  `ssh box2 hookctl reply %N --choice Yes` over the
           same warm master (and vs plain ssh), each on a fresh stand-in agent dialog

Usage: sudo bench/hosts/bench.py HOOKCTL [RUNS]   (HOOKCTL: a release build; needs sshd, ssh, tmux)
  ONLY_WARM=1: groups 1-2 only; ONLY_COLD=1: groups 1-3; RTT_MS=20: each host behind a relay on
  loopback that delays every chunk RTT/2 each way (a host over a network; tc netem is not everywhere).
Targets: 1 <= 1.5x, 2 <= 0.3x, 3 <= 1.2x, 4 <= 1.3x.
"""
import os, resource, shutil, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from timing import measure, report  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
hookctl = os.path.abspath(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 40
work = tempfile.mkdtemp(prefix="hk-hosts-", dir="/tmp")
procs = []


def sh(*argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw).stdout


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cleanup():
    for _, port, _ in hosts:
        subprocess.run(["ssh", "-o", f"Port={port}", "-o", f"ControlPath={runtime}/hookctl/ssh/%C", "-O", "exit", "--", "root@127.0.0.1"],
                       capture_output=True, env=env)
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait()
    for sock in [os.path.join(work, f) for f in os.listdir(work) if f.endswith(".tmux")]:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
    shutil.rmtree(work, ignore_errors=True)


rtt_ms = float(os.environ.get("RTT_MS", "0"))
relay_loop = None


def delay_relay(port, inner, one_way):
    """A TCP relay on 127.0.0.1:port to :inner that holds every chunk `one_way` seconds in each
    direction, in order (tc netem is not available on every machine; this stays inside it)."""
    global relay_loop
    import asyncio, threading
    if relay_loop is None:
        relay_loop = asyncio.new_event_loop()
        threading.Thread(target=relay_loop.run_forever, daemon=True).start()

    async def pump(reader, writer):
        loop = asyncio.get_running_loop()
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    loop.call_later(one_way, lambda: writer.can_write_eof() and writer.write_eof())
                    return
                loop.call_later(one_way, writer.write, chunk)
        except (ConnectionError, OSError):
            loop.call_later(one_way, writer.close)

    async def handle(reader, writer):
        await asyncio.sleep(one_way)  # the SYN's way there (the connect's round trip)
        try:
            inner_reader, inner_writer = await asyncio.open_connection("127.0.0.1", inner)
        except OSError:
            writer.close()
            return
        await asyncio.sleep(one_way)  # the SYN-ACK's way back
        await asyncio.gather(pump(reader, inner_writer), pump(inner_reader, writer))

    async def serve():
        return await asyncio.start_server(handle, "127.0.0.1", port)
    asyncio.run_coroutine_threadsafe(serve(), relay_loop).result()


client_home = os.path.join(work, "client")
runtime = os.path.join(work, "run")
os.makedirs(client_home)
os.makedirs(runtime, mode=0o700)
sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(work, "id"))
known = os.path.join(work, "known_hosts")
env = {"HOME": client_home, "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime, "LANG": "C.UTF-8"}
hosts = []
try:
    os.makedirs("/run/sshd", exist_ok=True)
    with open(known, "w") as known_file:
        for index in range(1, 6):
            name = f"box{index}"
            home = os.path.join(work, name)
            os.makedirs(os.path.join(home, ".local", "bin"))
            os.symlink(hookctl, os.path.join(home, ".local", "bin", "hookctl"))
            key = os.path.join(work, f"{name}.key")
            sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
            port = free_port()
            # RTT_MS: sshd listens elsewhere and a delaying relay takes the host's port (a remote host's round trip).
            inner = free_port() if rtt_ms else port
            if rtt_ms:
                delay_relay(port, inner, rtt_ms / 2000.0)
            config = os.path.join(work, f"{name}.sshd")
            with open(config, "w") as f:
                f.write(f"""Port {inner}
ListenAddress 127.0.0.1
HostKey {key}
AuthorizedKeysFile {work}/id.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
SetEnv HOME={home}
MaxSessions 200
MaxStartups 200:30:400
""")
            procs.append(subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", config], stderr=subprocess.DEVNULL))
            known_file.write(f"[127.0.0.1]:{port} {open(key + '.pub').read().split()[0]} {open(key + '.pub').read().split()[1]}\n")
            hosts.append((name, port, home))
    options = lambda port: ["-o", f"Port={port}", "-o", f"IdentityFile={work}/id", "-o", "IdentitiesOnly=yes",
                            "-o", f"UserKnownHostsFile={known}", "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR"]
    for name, port, home in hosts:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        add = [hookctl, "hosts", "add", name, "root@127.0.0.1"]
        for option in options(port)[1::2]:
            add += ["--ssh-option", option]
        sh(*add, env=env)
        # Each host's own board: a few agents, one waiting.
        for i, event in enumerate(["Stop", "Notification", "Stop"]):
            payload = '{"session_id":"%s-%d","cwd":"/srv/p%d","hook_event_name":"%s","message":"needs you"}' % (name, i, i, event)
            subprocess.run([hookctl, "notify", "--force", "--agent", "claude"], input=payload, text=True, check=True,
                           env={"HOME": home, "PATH": "/usr/bin:/bin", "HOOKCTL_NO_BACKGROUND": "1"})

    control = os.path.join(runtime, "hookctl", "ssh", "%C")
    master = ["-o", "ControlMaster=auto", "-o", f"ControlPath={control}", "-o", "ControlPersist=600", "-o", "BatchMode=yes",
              "-o", "ConnectTimeout=5"]

    def ssh(port, *command, warm=True):
        return ["ssh", "-T"] + options(port) + (master if warm else ["-o", "BatchMode=yes", "-o", "ControlMaster=no", "-o", "ControlPath=none"]) \
            + ["--", "root@127.0.0.1"] + list(command)

    def status_line(port, json=False):
        return ssh(port, "$HOME/.local/bin/hookctl", "status", *(["--json"] if json else []), warm=False)

    five = ["sh", "-c", " && ".join(" ".join("'" + w.replace("'", "'\\''") + "'" for w in status_line(port)) + " >/dev/null"
                                       for _, port, _ in hosts)]
    status_hosts = [hookctl, "status", "--hosts"]
    check = subprocess.run(status_hosts, env=env, capture_output=True, text=True)
    print(check.stdout)
    if check.returncode != 0 or "unreachable" in check.stdout:
        raise SystemExit("status --hosts did not reach every host:\n" + check.stdout + check.stderr)

    # The first run started the link's owner (`hookctl hosts link`): wait until it holds a link to every host.
    link_log = os.path.join(client_home, ".local", "state", "hookctl", "link.log")
    for _ in range(400):
        if os.path.exists(link_log) and sum(" link up " in line for line in open(link_log)) >= len(hosts):
            break
        time.sleep(0.05)
    else:
        raise SystemExit("the link did not come up to every host:\n" + (open(link_log).read() if os.path.exists(link_log) else "(no link.log)"))
    no_link = ["env", "HOOKCTL_NO_LINK=1"]

    print(f"== 1, 2: warm masters, {runs} rounds")
    samples = measure({"status --hosts (warm)": status_hosts,
                       "ssh box1 true (warm master)": ssh(hosts[0][1], "true"),
                       "5x ssh host hookctl status": five,
                       # For reference: what one host's part costs.
                       "status --host box1 (warm)": [hookctl, "status", "--host", "box1"],
                       "ssh box1 hookctl status --json (warm master)": ssh(hosts[0][1], "$HOME/.local/bin/hookctl", "status", "--json"),
                       "hookctl status (local)": [hookctl, "status"],
                       # For reference: the same without the link (per-call ssh over the warm masters), and env's own start.
                       "status --hosts (link off: ssh per call)": no_link + status_hosts,
                       "env true": ["env", "HOOKCTL_NO_LINK=1", "true"]}, runs=runs, warmup=3, env=env)
    medians = report(samples, [])
    one = medians["status --hosts (warm)"] / medians["ssh box1 true (warm master)"]
    two = medians["status --hosts (warm)"] / medians["5x ssh host hookctl status"]
    print(f"  ratio vs ssh true over a warm master: {one:.2f}x (target <= 1.5x)")
    print(f"  ratio vs five sequential ssh hookctl status: {two:.2f}x (target <= 0.3x)")

    if os.environ.get("ONLY_WARM"):
        raise SystemExit(0)
    print(f"== 3: cold (every master closed before each run), {max(10, runs // 2)} rounds")
    def close_masters():
        for _, port, _ in hosts:
            subprocess.run(["ssh"] + options(port) + master + ["-O", "exit", "--", "root@127.0.0.1"], env=env, capture_output=True)
    # Cold means no master, so no link either: HOOKCTL_NO_LINK keeps the owner out of it (it would
    # start five links in the background right after each run, while the baselines are timed).
    cold_env = dict(env, HOOKCTL_NO_LINK="1")
    # CPU, both ends: this script's waited-for children (ssh clients, hookctl) and the five sshd
    # listeners' own and waited-for children's time (their sessions, the remote shells and hookctl).
    tick = os.sysconf("SC_CLK_TCK")
    def cpu():
        own = resource.getrusage(resource.RUSAGE_CHILDREN)
        server = 0
        for p in procs:
            fields = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
            server += sum(int(v) for v in fields[11:15]) / tick
        return own.ru_utime + own.ru_stime + server
    cold, slowest, cold_cpu, single_cpu, single_wall, five_at_once, host_cold = [], [], [], [], [], [], []
    for round_index in range(max(10, runs // 2) + 2):
        close_masters()
        time.sleep(0.2)  # the masters' exits settle before the clock starts
        before = cpu()
        start = time.perf_counter()
        result = subprocess.run(status_hosts, env=cold_env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        time.sleep(0.2)
        used = cpu() - before
        if result.returncode != 0 or "unreachable" in result.stdout:
            raise SystemExit("cold status --hosts failed: " + result.stdout + result.stderr)
        # The same five plain ssh commands started at once: what the machine itself allows for five handshakes.
        start = time.perf_counter()
        together = [subprocess.Popen(status_line(port, json=True), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for _, port, _ in hosts]
        if any(p.wait() != 0 for p in together):
            raise SystemExit("five plain ssh at once failed")
        at_once = time.perf_counter() - start
        close_masters()
        time.sleep(0.2)
        start = time.perf_counter()
        subprocess.run([hookctl, "status", "--host", "box1", "--json"], env=cold_env, capture_output=True, check=True)
        one_cold = time.perf_counter() - start
        singles = []
        for _, port, _ in hosts:
            before = cpu()
            start = time.perf_counter()
            subprocess.run(status_line(port, json=True), env=env, capture_output=True, check=True)
            singles.append(time.perf_counter() - start)
            time.sleep(0.1)  # sshd reaps the session's processes (their CPU is counted then)
            if round_index >= 2:
                single_cpu.append(cpu() - before)
                single_wall.append(singles[-1])
        if round_index >= 2:
            cold.append(elapsed)
            cold_cpu.append(used)
            five_at_once.append(at_once)
            host_cold.append(one_cold)
            slowest.append(max(singles))
    medians3 = report({"status --hosts (cold)": cold, "slowest single ssh hookctl status --json": slowest,
                       "five plain ssh hookctl status --json at once": five_at_once, "status --host box1 (cold)": host_cold}, [])
    three = medians3["status --hosts (cold)"] / medians3["slowest single ssh hookctl status --json"]
    print(f"  ratio cold vs the slowest single: {three:.2f}x (target <= 1.2x); five plain ssh at once vs the slowest single: "
          f"{medians3['five plain ssh hookctl status --json at once'] / medians3['slowest single ssh hookctl status --json']:.2f}x; "
          f"cold vs five plain ssh at once: {medians3['status --hosts (cold)'] / medians3['five plain ssh hookctl status --json at once']:.2f}x")
    cores = os.cpu_count()
    one_cpu, one_wall = statistics.mean(single_cpu), statistics.median(single_wall)
    bound = max(1.0, len(hosts) * one_cpu / cores / one_wall)
    print(f"  CPU (both ends): one single {one_cpu * 1000:.0f} ms over {one_wall * 1000:.0f} ms wall; cold --hosts "
          f"{statistics.mean(cold_cpu) * 1000:.0f} ms (its masters' server side not yet counted). Five handshakes on {cores} cores take at least "
          f"{len(hosts)} x {one_cpu * 1000:.0f} / {cores} = {len(hosts) * one_cpu / cores * 1000:.0f} ms: a floor of {bound:.2f}x the single here")
    print(f"FLOOR cold/slowest >= {bound:.2f}x on this machine")

    if os.environ.get("ONLY_COLD"):
        raise SystemExit(0)
    print(f"== 4: reply box2:%N --choice Yes, warm, {max(10, runs // 2)} rounds (a fresh dialog each)")
    name, port, home = hosts[1]
    tmux_socket = os.path.join(work, "box2.tmux")
    standin = os.path.join(ROOT, "Tests", "Fixtures", "standin_agent.py")
    serial = [0]
    # A session that stays while the dialogs' windows come and go (the server lives with it).
    sh("tmux", "-S", tmux_socket, "-f", "/dev/null", "new-session", "-d", "-s", "keep", "-x", "80", "-y", "30", "sleep 3600")

    def dialog():
        serial[0] += 1
        session = f"r{serial[0]}"
        record = os.path.join(work, f"record-{session}")
        command = (f"env HOME={home} SSHIDO_SESSION=1 HOOKCTL_NO_BACKGROUND=1 python3 -S {standin} --record {record} "
                   f"--hookctl {hookctl} --session {session} --question Proceed? --options 'Yes|No'; exec sleep 600")
        pane = sh("tmux", "-S", tmux_socket, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "keep:", command).strip()
        for _ in range(200):
            if os.path.exists(record):
                break
            time.sleep(0.02)
        return pane, record

    ours, warm_ssh, plain_ssh = [], [], []
    for round_index in range(max(10, runs // 2) + 1):
        panes = [dialog(), dialog(), dialog()]
        time.sleep(1.0)  # past reply's dialog settle time (0.8 s from the hook), for all three alike
        timed = [([hookctl, "reply", f"{name}:{panes[0][0]}", "--choice", "Yes"], ours),
                 (ssh(port, "$HOME/.local/bin/hookctl", "reply", panes[1][0], "--choice", "Yes"), warm_ssh),
                 (ssh(port, "$HOME/.local/bin/hookctl", "reply", panes[2][0], "--choice", "Yes", warm=False), plain_ssh)]
        for argv, into in (timed if round_index % 2 else list(reversed(timed))):
            start = time.perf_counter()
            result = subprocess.run(argv, env=env, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            if result.returncode != 0:
                raise SystemExit(f"{argv[:3]} failed: {result.stdout}{result.stderr}")
            if round_index >= 1:
                into.append(elapsed)
        for pane, record in panes:
            if open(record, "rb").read()[:1] != b"1":
                raise SystemExit(f"the agent in {pane} did not get '1': {open(record, 'rb').read()!r}")
            subprocess.run(["tmux", "-S", tmux_socket, "kill-pane", "-t", pane], capture_output=True)
    medians4 = report({"reply box2:%N --choice Yes (warm)": ours, "ssh box2 hookctl reply (warm master)": warm_ssh,
                       "ssh box2 hookctl reply (plain ssh)": plain_ssh}, [])
    four = medians4["reply box2:%N --choice Yes (warm)"] / medians4["ssh box2 hookctl reply (warm master)"]
    four_plain = medians4["reply box2:%N --choice Yes (warm)"] / medians4["ssh box2 hookctl reply (plain ssh)"]
    print(f"  ratio vs ssh over the same warm master: {four:.2f}x (target <= 1.3x); vs plain ssh: {four_plain:.2f}x")
    print(f"\nSUMMARY warm/true {one:.2f}x  warm/5-sequential {two:.2f}x  cold/slowest {three:.2f}x  reply {four:.2f}x (plain ssh {four_plain:.2f}x)")
finally:
    cleanup()
