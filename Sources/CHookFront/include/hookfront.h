// The hook front's protocol, shared by the front (Sources/hookctl-front, C: what the agent starts) and the
// warm hook server (HookServer.swift, in hookctl): one place for the names, bytes and deadlines both use.
//
// The front connects to HK_FRONT_SOCKET in its own folder and waits for the worker's HK_FRONT_READY (so no
// descriptor of the agent's is ever left in a connection no process has taken), then sends, in one stream:
//   "HKF1", then the body's length (uint32, host order), with SCM_RIGHTS carrying its fds 0, 1, 2 and an
//   O_PATH descriptor of its working directory; then the body: ppid, pid, umask, argc (uint32 each), argc
//   NUL-terminated arguments (the hookctl path and the rest of the #! line's word, the script, its
//   arguments),
//   envc (uint32), envc NUL-terminated "NAME=value" strings.
// The server's worker answers HK_FRONT_ACCEPTED once it holds everything and has touched nothing; the front
// answers HK_FRONT_GO, after which it never runs hookctl itself but on HK_FRONT_NOT_RUN; the worker does
// nothing without GO, and tells the server it took GO before it acts: a worker that ends without having
// taken it (its wait for GO ended first) is reported as HK_FRONT_NOT_RUN, and the front runs hookctl. When the
// worker ends the server sends its wait status (int32, host order) to a front it accepted; a worker that
// ends normally sends its own first (exit code << 8) and closes the hook's stdio, so the front is done while
// the worker is still being torn down. (A wait status's first byte is never ACCEPTED: 0x41 is no signal.) A front that gets no ACCEPTED (no socket,
// refused, closed, deadline) execs hookctl with its stdin untouched, so an event is neither lost nor repeated.
#ifndef HOOKFRONT_H
#define HOOKFRONT_H

#include <stdint.h>
#include <sys/types.h>

#define HK_FRONT_SOCKET "hookctl-hook.sock"
/// The link beside the front to the hookctl it runs (`#!FRONT GATE`; older scripts: `#!FRONT HOOKCTL hook-script GATE`).
#define HK_FRONT_LINK "hookctl"
#define HK_FRONT_LOCK "hookctl-hook.lock"
#define HK_FRONT_MAGIC "HKF1"
#define HK_FRONT_ACCEPTED 0x41  /* 'A' */
#define HK_FRONT_GO 0x47        /* 'G' */
#define HK_FRONT_READY 0x59     /* 'Y' */
/// The status that says the worker never ran the hook (no wait status has bits above the low 16).
#define HK_FRONT_NOT_RUN 0x7e7e0000
#define HK_FRONT_FDS 4
#define HK_FRONT_MAX_BODY (4 * 1024 * 1024)
#define HK_FRONT_MAX_STRINGS 65536
/// How long the front waits for ACCEPTED before it runs hookctl itself, and the worker for the message and GO.
#define HK_FRONT_ACCEPT_MS 3000
#define HK_FRONT_MESSAGE_MS 3000
/// How long the front waits for the worker's status (the agents' own hook timeouts are shorter).
#define HK_FRONT_STATUS_MS (15 * 60 * 1000)

/// The server's side of one connection: reads the header and its descriptors within HK_FRONT_MESSAGE_MS.
/// On success returns the body's length and fills fds (all four, close-on-exec); -1 on anything else (with
/// every received descriptor closed).
int64_t hk_front_receive_header(int connection, int fds[HK_FRONT_FDS]);

/// Reads exactly `length` bytes within `milliseconds`; 0 on success, -1 otherwise.
int hk_front_read_exactly(int connection, void *buffer, size_t length, int milliseconds);

/// rename that fails with EEXIST instead of replacing (renameat2 RENAME_NOREPLACE): 0, or -1 and errno.
/// (A GNU call Swift's Glibc module does not show; `Outbox.placeSpare` uses it.)
int hk_rename_noreplace(const char *from, const char *to);

/// The server's GNU calls, which Swift's Glibc module does not show: accept4 with SOCK_CLOEXEC, the peer's
/// credentials (SO_PEERCRED; 0 on success), pipe2 with O_CLOEXEC.
int hk_front_accept(int listener);
int hk_front_peer(int connection, pid_t *pid, uid_t *uid);
int hk_front_pipe(int fds[2]);
/// The server's channel to a worker (a close-on-exec unix socket pair), and one descriptor over it: a
/// connection handed to a worker forked ahead of time. Receiving blocks; -1 on EOF or error.
int hk_front_channel(int fds[2]);
int hk_front_send_fd(int channel, int fd);
int hk_front_receive_fd(int channel);

/// The front itself (the whole program; `main` calls it).
int hk_front_main(int argc, char **argv);

#endif
