// epoll for the system service's name layer: many sockets behind the one
// descriptor the service's poll loop waits on. `struct epoll_event` is
// packed on x86-64, so it is filled and read here, not in Swift.
#ifndef CRETIME_EPOLL_H
#define CRETIME_EPOLL_H

#ifdef __linux__
/// A close-on-exec epoll instance: -1 with errno set.
int retime_epoll_create(void);

/// Watches `fd` (level-triggered) for input, and for output too when
/// `output` is non-zero; adds it, or changes how it is watched. 0, or -1
/// with errno set.
int retime_epoll_watch(int epfd, int fd, int output);

/// Stops watching `fd` (before it is closed).
void retime_epoll_forget(int epfd, int fd);

/// The descriptors ready now, without waiting: writes at most `capacity`
/// of them into `fds` and whether each may be written to into `writable`.
/// Returns how many, or -1 with errno set.
int retime_epoll_ready(int epfd, int *fds, int *writable, int capacity);
#endif

#endif
