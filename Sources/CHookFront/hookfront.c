// The hook front (see include/hookfront.h): the program the agent's hook command starts, through the
// generated script's `#!` line. It hands the hook to a warm hookctl (no Swift process starts while the agent
// waits) or, when there is none, execs hookctl exactly as the `#!` line did before it existed.
#define _GNU_SOURCE
#include "hookfront.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/// Waits until `fd` is ready for `events` or the deadline (monotonic ms) passes: 1 ready, 0 deadline, -1 error.
static int wait_for(int fd, short events, int64_t deadline) {
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (n > 0) return 1;
        if (n == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

int hk_front_read_exactly(int connection, void *buffer, size_t length, int milliseconds) {
    int64_t deadline = now_ms() + milliseconds;
    char *at = buffer;
    while (length > 0) {
        if (wait_for(connection, POLLIN, deadline) != 1) return -1;
        ssize_t n = recv(connection, at, length, MSG_DONTWAIT);
        if (n > 0) { at += n; length -= (size_t)n; continue; }
        if (n == 0) return -1;
        if (errno != EINTR && errno != EAGAIN) return -1;
    }
    return 0;
}

static int write_exactly(int connection, const void *buffer, size_t length, int64_t deadline) {
    const char *at = buffer;
    while (length > 0) {
        if (wait_for(connection, POLLOUT, deadline) != 1) return -1;
        ssize_t n = send(connection, at, length, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) { at += n; length -= (size_t)n; continue; }
        if (n < 0 && errno != EINTR && errno != EAGAIN) return -1;
    }
    return 0;
}

int64_t hk_front_receive_header(int connection, int fds[HK_FRONT_FDS]) {
    for (int i = 0; i < HK_FRONT_FDS; i++) fds[i] = -1;
    int64_t deadline = now_ms() + HK_FRONT_MESSAGE_MS;
    if (wait_for(connection, POLLIN, deadline) != 1) return -1;
    char header[8];
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(int) * (HK_FRONT_FDS + 4))]; } control;
    struct iovec iov = {.iov_base = header, .iov_len = sizeof header};
    struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t n;
    do { n = recvmsg(connection, &message, MSG_CMSG_CLOEXEC | MSG_DONTWAIT); } while (n < 0 && errno == EINTR);
    int received = 0, extra = 0;
    // On an error the kernel leaves msg_controllen as given and the buffer unwritten: nothing to walk.
    if (n < 0) message.msg_controllen = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *incoming = (int *)CMSG_DATA(c);
        for (size_t i = 0; i < count; i++) {
            if (received < HK_FRONT_FDS) fds[received++] = incoming[i];
            else { close(incoming[i]); extra++; }
        }
    }
    int ok = n > 0 && !(message.msg_flags & MSG_CTRUNC) && received == HK_FRONT_FDS && extra == 0;
    // The header may arrive in pieces after the first byte (which carries the descriptors).
    if (ok && n < (ssize_t)sizeof header)
        ok = hk_front_read_exactly(connection, header + n, sizeof header - (size_t)n, HK_FRONT_MESSAGE_MS) == 0;
    uint32_t length = 0;
    if (ok) {
        memcpy(&length, header + 4, sizeof length);
        ok = memcmp(header, HK_FRONT_MAGIC, 4) == 0 && length <= HK_FRONT_MAX_BODY;
    }
    if (!ok) {
        for (int i = 0; i < HK_FRONT_FDS; i++) if (fds[i] >= 0) { close(fds[i]); fds[i] = -1; }
        return -1;
    }
    return length;
}

int hk_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int hk_front_accept(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC);
}

int hk_front_peer(int connection, pid_t *pid, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    return 0;
}

int hk_front_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int hk_front_channel(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
}

int hk_front_send_fd(int channel, int fd) {
    char byte = 'C';
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(int))]; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    struct cmsghdr *c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    ssize_t sent;
    do { sent = sendmsg(channel, &message, MSG_NOSIGNAL | MSG_DONTWAIT); } while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}

int hk_front_receive_fd(int channel) {
    char byte = 0;
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(int) * 4)]; } control;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t n;
    do { n = recvmsg(channel, &message, MSG_CMSG_CLOEXEC); } while (n < 0 && errno == EINTR);
    int fd = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *incoming = (int *)CMSG_DATA(c);
        for (size_t i = 0; i < count; i++) {
            if (fd < 0 && n == 1 && byte == 'C') fd = incoming[i];
            else close(incoming[i]);
        }
    }
    return fd;
}

// MARK: the front

static void append(char **buffer, size_t *length, size_t *capacity, const void *bytes, size_t count) {
    if (*buffer == NULL) return;
    if (*length + count > *capacity) {
        size_t wanted = (*length + count) * 2;
        char *grown = realloc(*buffer, wanted);
        if (grown == NULL) { free(*buffer); *buffer = NULL; return; }
        *buffer = grown;
        *capacity = wanted;
    }
    memcpy(*buffer + *length, bytes, count);
    *length += count;
}

static void append_u32(char **buffer, size_t *length, size_t *capacity, uint32_t value) {
    append(buffer, length, capacity, &value, sizeof value);
}

/// Hands the hook to the warm server. Returns the connection once the worker holds it (the front must then
/// never run hookctl itself), or -1 with nothing handed over.
static int hand_over(const char *socket_path, char **arguments, int count) {
    for (int fd = 0; fd <= 2; fd++) if (fcntl(fd, F_GETFD) < 0) return -1;  // a closed stdio: hookctl copes
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof address.sun_path) return -1;
    strcpy(address.sun_path, socket_path);
    // Non-blocking: a server that does not accept (stopped, stuck) fills its backlog, and a blocking
    // connect would then wait with no deadline; this one fails at once (EAGAIN) and hookctl runs here.
    int connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (connection < 0) return -1;
    int cwd = -1;
    char *body = NULL;
    if (connect(connection, (struct sockaddr *)&address, sizeof address) != 0) goto refused;
    // READY first: nothing of the agent's goes into a connection no worker has taken.
    int64_t deadline = now_ms() + HK_FRONT_ACCEPT_MS;
    char ready = 0;
    if (hk_front_read_exactly(connection, &ready, 1, HK_FRONT_ACCEPT_MS) != 0 || ready != (char)HK_FRONT_READY) goto refused;
    cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0) goto refused;

    size_t length = 0, capacity = 4096;
    body = malloc(capacity);
    mode_t mask = umask(0);
    umask(mask);
    append_u32(&body, &length, &capacity, (uint32_t)getppid());
    append_u32(&body, &length, &capacity, (uint32_t)getpid());
    append_u32(&body, &length, &capacity, (uint32_t)mask);
    append_u32(&body, &length, &capacity, (uint32_t)count);
    for (int i = 0; i < count; i++) append(&body, &length, &capacity, arguments[i], strlen(arguments[i]) + 1);
    uint32_t variables = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++) variables++;
    append_u32(&body, &length, &capacity, variables);
    for (char **e = environ; e != NULL && *e != NULL; e++) append(&body, &length, &capacity, *e, strlen(*e) + 1);
    if (body == NULL || length > HK_FRONT_MAX_BODY || variables > HK_FRONT_MAX_STRINGS || count > HK_FRONT_MAX_STRINGS) goto refused;

    char header[8];
    memcpy(header, HK_FRONT_MAGIC, 4);
    uint32_t length32 = (uint32_t)length;
    memcpy(header + 4, &length32, 4);
    int fds[HK_FRONT_FDS] = {0, 1, 2, cwd};
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof fds)]; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = header, .iov_len = sizeof header};
    struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    struct cmsghdr *c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t sent;
    do { sent = sendmsg(connection, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    if (sent <= 0) goto refused;
    if ((size_t)sent < sizeof header && write_exactly(connection, header + sent, sizeof header - (size_t)sent, deadline) != 0) goto refused;
    close(cwd);
    cwd = -1;
    if (write_exactly(connection, body, length, deadline) != 0) goto refused;
    free(body);
    body = NULL;

    // ACCEPTED: the worker holds everything and has done nothing. GO commits both sides.
    char answer = 0;
    int64_t left = deadline - now_ms();
    if (left <= 0 || hk_front_read_exactly(connection, &answer, 1, (int)left) != 0 || answer != (char)HK_FRONT_ACCEPTED) goto refused;
    char go = HK_FRONT_GO;
    if (write_exactly(connection, &go, 1, deadline) != 0) goto refused;
    return connection;

refused:
    free(body);
    if (cwd >= 0) close(cwd);
    close(connection);
    return -1;
}

static void say(const char *text) {
    ssize_t ignored = write(2, text, strlen(text));
    (void)ignored;
}

int hk_front_main(int argc, char **argv) {
    // The kernel runs `#!FRONT GATE` as: FRONT, "GATE", the script, its arguments; hookctl is the link
    // beside the front. (Older scripts: `#!FRONT HOOKCTL hook-script GATE`, the rest of the line one word.)
    if (argc < 2 || argv[1][0] == '\0' || strchr(argv[0], '/') == NULL) {
        say("hookctl-front: run by a hook script's #! line (#!/path/hookctl-front GATE)\n");
        return 64;
    }
    const char *slash = strrchr(argv[0], '/');
    int folder = (int)(slash - argv[0]);
    char *word = argv[1];
    char *hookctl = NULL, *interpreter = NULL;
    if (word[0] == '/') {
        char *space = strchr(word, ' ');
        hookctl = strndup(word, space ? (size_t)(space - word) : strlen(word));
        interpreter = space ? space + 1 : (char *)"hook-script";
    } else if (asprintf(&hookctl, "%.*s/%s", folder, argv[0], HK_FRONT_LINK) < 0 || asprintf(&interpreter, "hook-script %s", word) < 0) {
        hookctl = NULL;
    }
    char **rest = calloc((size_t)argc + 1, sizeof(char *));
    if (hookctl == NULL || interpreter == NULL || rest == NULL) { say("hookctl-front: out of memory\n"); return 71; }
    rest[0] = hookctl;
    rest[1] = interpreter;
    for (int i = 2; i < argc; i++) rest[i] = argv[i];
    rest[argc] = NULL;

    // The socket beside the front (the 0700 folder setup made for the script).
    char socket_path[PATH_MAX];
    int fits = snprintf(socket_path, sizeof socket_path, "%.*s/%s", folder, argv[0], HK_FRONT_SOCKET);
    int connection = fits > 0 && (size_t)fits < sizeof socket_path ? hand_over(socket_path, rest, argc) : -1;
    int32_t status = 0;
    if (connection >= 0 && hk_front_read_exactly(connection, &status, sizeof status, HK_FRONT_STATUS_MS) != 0) {
        say("hookctl-front: the warm hookctl ended without an exit status (see 'hookctl events')\n");
        return 70;
    }
    // No worker took it, or the one that did never ran it (HK_FRONT_NOT_RUN): hookctl runs it here.
    if (connection < 0 || status == (int32_t)HK_FRONT_NOT_RUN) {
        if (connection >= 0) close(connection);
        execv(hookctl, rest);
        int error = errno;
        say("hookctl-front: cannot run ");
        say(hookctl);
        say(": ");
        say(strerror(error));
        say(" (run 'hookctl setup' again)\n");
        return error == ENOENT ? 127 : 126;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 70;
}
