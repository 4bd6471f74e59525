// The Linux calls the Glibc module does not export: timerfd, inotify and
// memmem; and the supervisor that hooks run under (CRetimeSpawn.h).
// Thin wrappers, so the Swift side needs no header of its own.
#ifndef CRETIME_LINUX_H
#define CRETIME_LINUX_H

#ifdef __linux__
#include <sys/timerfd.h>
#include <sys/inotify.h>

/// A CLOCK_REALTIME timer descriptor, non-blocking, close-on-exec.
static inline int retime_timerfd_create(void) {
    return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
}

/// Arms the timer for an absolute wall-clock instant; a change of the wall
/// clock (settimeofday, NTP step) cancels it, so the reader wakes at once.
/// A zero instant disarms it.
static inline int retime_timerfd_arm(int fd, long long seconds, long nanoseconds) {
    struct itimerspec spec = {{0, 0}, {seconds, nanoseconds}};
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, 0);
}

/// An inotify descriptor, non-blocking, close-on-exec.
static inline int retime_inotify_create(void) {
    return inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

/// Watches a directory for files written into it or renamed into place.
static inline int retime_inotify_watch_writes(int fd, const char *path) {
    return inotify_add_watch(fd, path, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE);
}

/// Watches a directory for files made in it or renamed into it only (a
/// socket is made by `bind`, and never written).
static inline int retime_inotify_watch_new(int fd, const char *path) {
    return inotify_add_watch(fd, path, IN_CREATE | IN_MOVED_TO);
}

/// Whether the inotify events in `buffer` (as read from the descriptor)
/// name the file `name` in a watched directory. Events are variable-length
/// records, which Swift has no type for.
int retime_inotify_names(const void *buffer, long length, const char *name);

/// Whether any inotify event in `buffer` names a file whose name ends in
/// `suffix`.
int retime_inotify_names_ending(const void *buffer, long length, const char *suffix);

/// Whether any inotify event in `buffer` names a file whose name begins
/// with `prefix`, or says events were lost (the queue overflowed).
int retime_inotify_names_starting(const void *buffer, long length, const char *prefix);

/// The uid of the process at the other end of a Unix socket, as the kernel
/// recorded it when it connected (`SO_PEERCRED`): 0 on success, -1 with
/// errno set. `struct ucred` needs _GNU_SOURCE, hence a function here.
int retime_peer_uid(int fd, unsigned int *uid);
#endif

#include <stddef.h>

/// Makes `signo` write its number (one byte) to `write_fd` from a handler,
/// whichever thread the kernel delivers it to: the self-pipe trick. A
/// descriptor of 0 is never used. Returns sigaction's result.
int retime_signal_forward(int signo, int write_fd);

/// Gives `signo` its default disposition back and forgets its descriptor.
int retime_signal_restore(int signo);

#ifdef __linux__
/// A signalfd for `signals` (non-blocking, close-on-exec): it yields those
/// that are pending because every thread blocks them, which no handler
/// ever sees (a process started with them blocked, as children of some
/// runners are).
int retime_signalfd(const int *signals, int count);

/// The number of the next signal the signalfd holds, or -1 when none.
int retime_signalfd_take(int fd);
#endif

/// memmem, which the Glibc module does not export (a GNU extension): where
/// `needle` first occurs in `haystack`, or NULL.
void *retime_memmem(const void *haystack, size_t length, const void *needle, size_t needle_length);

#include "CRetimeSpawn.h"
#include "CRetimeChild.h"
#include "CRetimeNet.h"
#include "CRetimeEpoll.h"
#include "CRetimeMemory.h"
#endif
