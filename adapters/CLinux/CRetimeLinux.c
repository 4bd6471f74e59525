// Most of this target is in its header; what needs a feature macro is here.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include "CRetimeLinux.h"

void *retime_memmem(const void *haystack, size_t length, const void *needle, size_t needle_length) {
    return memmem(haystack, length, needle, needle_length);
}

#ifdef __linux__
int retime_inotify_names(const void *buffer, long length, const char *name) {
    const char *cursor = buffer, *end = (const char *)buffer + length;
    while (cursor + sizeof(struct inotify_event) <= end) {
        const struct inotify_event *event = (const struct inotify_event *)cursor;
        // `name` is NUL-padded to `len` bytes; a watch on the file itself has none.
        if (event->len > 0 && cursor + sizeof(struct inotify_event) + event->len <= end
            && strncmp(event->name, name, event->len) == 0) {
            return 1;
        }
        cursor += sizeof(struct inotify_event) + event->len;
    }
    return 0;
}

int retime_inotify_names_ending(const void *buffer, long length, const char *suffix) {
    const char *cursor = buffer, *end = (const char *)buffer + length;
    size_t suffix_length = strlen(suffix);
    while (cursor + sizeof(struct inotify_event) <= end) {
        const struct inotify_event *event = (const struct inotify_event *)cursor;
        if (event->len > 0 && cursor + sizeof(struct inotify_event) + event->len <= end) {
            size_t name_length = strnlen(event->name, event->len);
            if (name_length >= suffix_length
                && memcmp(event->name + name_length - suffix_length, suffix, suffix_length) == 0) {
                return 1;
            }
        }
        cursor += sizeof(struct inotify_event) + event->len;
    }
    return 0;
}

int retime_inotify_names_starting(const void *buffer, long length, const char *prefix) {
    const char *cursor = buffer, *end = (const char *)buffer + length;
    size_t prefix_length = strlen(prefix);
    while (cursor + sizeof(struct inotify_event) <= end) {
        const struct inotify_event *event = (const struct inotify_event *)cursor;
        // Events were lost: any of them may have named it.
        if (event->mask & IN_Q_OVERFLOW) return 1;
        if (event->len > 0 && cursor + sizeof(struct inotify_event) + event->len <= end
            && strnlen(event->name, event->len) >= prefix_length && memcmp(event->name, prefix, prefix_length) == 0) {
            return 1;
        }
        cursor += sizeof(struct inotify_event) + event->len;
    }
    return 0;
}
#endif

#ifdef __linux__
int retime_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = (unsigned int)credentials.uid;
    return 0;
}
#endif

#include <errno.h>
#include <signal.h>
#include <unistd.h>

// Where each signal's number is written, by signal number (-1: nowhere).
// Read by the handler, so one plain int per signal: no locks in a handler.
static volatile sig_atomic_t retime_signal_fds[NSIG];

static void retime_signal_write(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    if (signo > 0 && signo < NSIG && retime_signal_fds[signo] > 0) {
        (void)write((int)retime_signal_fds[signo], &byte, 1);
    }
    errno = saved;
}

int retime_signal_forward(int signo, int write_fd) {
    if (signo <= 0 || signo >= NSIG) { errno = EINVAL; return -1; }
    retime_signal_fds[signo] = write_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = retime_signal_write;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, NULL);
}

int retime_signal_restore(int signo) {
    if (signo <= 0 || signo >= NSIG) { errno = EINVAL; return -1; }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    int result = sigaction(signo, &action, NULL);
    retime_signal_fds[signo] = 0;
    return result;
}

#ifdef __linux__
#include <sys/signalfd.h>

int retime_signalfd(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int index = 0; index < count; index++) sigaddset(&set, signals[index]);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int retime_signalfd_take(int fd) {
    struct signalfd_siginfo info;
    ssize_t count = read(fd, &info, sizeof info);
    return count == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}
#endif
