// The kernel interfaces the firewall and app layers use that have no Swift
// (or Glibc module) surface: the process-events connector, pidfds and the
// sock_diag socket-destroy request. Their messages are nested, variable
// length C structures, so they are read and written here.
#ifndef CRETIME_NET_H
#define CRETIME_NET_H

#ifdef __linux__
/// A netlink socket subscribed to the kernel's process events (the proc
/// connector), non-blocking and close-on-exec, with a socket filter that
/// lets through only `exec`, `comm` and `fork` events, and of forks only
/// new processes (never a new thread): exits and threads, much of a busy
/// machine's events, never wake the reader. -1 with errno set.
/// The kernel delivers events only to a subscriber in its initial network,
/// user and PID namespaces; elsewhere the socket stays silent.
int retime_proc_events_open(void);

/// What a process event says: a process (its pid, the thread group's)
/// exec'd, renamed itself, or was forked from `parent`.
enum { RETIME_PROC_EXEC = 1, RETIME_PROC_COMM = 2, RETIME_PROC_FORK = 3 };
typedef struct {
    int kind;
    int pid;
    /// The forking process's pid (its thread group's), for a fork; else 0.
    int parent;
} retime_proc_event;

/// Reads pending events, in the order the kernel sent them, into `events`
/// (at most `capacity`, at least 64); what does not fit stays queued for
/// the next call. Returns how many; sets `*overflowed` when the kernel
/// dropped events (the socket's buffer was full), so the reader must look
/// at every process instead.
int retime_proc_events_read(int fd, retime_proc_event *events, int capacity, int *overflowed);

/// A descriptor that names process `pid` for as long as it lives, even if
/// its number is reused (pidfd_open): -1 with errno set.
int retime_pidfd_open(int pid);

/// Sends `signal` to the process a pidfd names: -1 with errno set (ESRCH
/// once it has gone).
int retime_pidfd_signal(int pidfd, int signal);

/// Destroys every TCP socket of `uid` (established or connecting) whose
/// remote address is one of `addresses`: `count` addresses of `length`
/// bytes each (4 for IPv4, 16 for IPv6), packed. The owner sees
/// ECONNABORTED at once. IPv4 addresses also match IPv6 sockets that reach
/// them as `::ffff:a.b.c.d`. Returns how many were destroyed, or -1 with
/// errno set (EOPNOTSUPP without CONFIG_INET_DIAG_DESTROY).
int retime_destroy_connections(unsigned int uid, const unsigned char *addresses, int count, int length);
#endif

#endif
