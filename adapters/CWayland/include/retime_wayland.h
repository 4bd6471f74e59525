// A small face of a Wayland compositor's idle notifications for Swift:
// libwayland-client opened at run time (the release binary is static and
// cannot link a shared library), the two idle protocols' interface tables
// written by hand (ext-idle-notify-v1, KDE's older org_kde_kwin_idle), no
// variadic calls, no callbacks into Swift: events wait in a queue that the
// caller drains after each dispatch. One connection is used by one thread.
#ifndef RETIME_WAYLAND_H
#define RETIME_WAYLAND_H
#include <stddef.h>
#include <stdint.h>

/// Opens libwayland-client once; 0, or -1 with `why` filled (dlerror's words).
int rw_load(char *why, size_t size);

/// Which idle protocol a connection follows.
enum {
    RW_NO_IDLE = 0,
    /// `ext_idle_notifier_v1` (wayland-protocols staging, >= 1.27).
    RW_EXT_IDLE_NOTIFY = 1,
    /// KDE's `org_kde_kwin_idle` (KWin 5, sway 1.7, older wlroots).
    RW_KDE_KWIN_IDLE = 2,
};

typedef struct rw_idle rw_idle;

/// Connects to the compositor's socket at `path` and reads its globals,
/// giving up after `deadline_ms`. With `timeout_ms` > 0 it then asks for an
/// idle notification once the first seat has had no input for that long
/// (ext-idle-notify when offered, else kwin idle) and fails when neither is
/// offered. NULL with `why` filled on failure.
rw_idle *rw_idle_open(const char *path, uint32_t timeout_ms, int deadline_ms, char *why, size_t size);
/// The best idle protocol the compositor offers (RW_*).
int rw_idle_offered(const rw_idle *idle);
/// The protocol followed (RW_NO_IDLE when opened with no timeout).
int rw_idle_protocol(const rw_idle *idle);
/// The connection's descriptor, to poll for reading.
int rw_idle_fd(const rw_idle *idle);
/// Before a poll: dispatches what was read, sends what is queued. 0, or -1
/// when the connection is lost. Each call is followed by one rw_idle_dispatch.
int rw_idle_prepare(rw_idle *idle);
/// After the poll: reads the socket when `readable`, dispatches the events.
/// 0, or -1 when the connection is lost.
int rw_idle_dispatch(rw_idle *idle, int readable);
/// The oldest event not yet taken: 1 idle, 0 resumed (input again), -1
/// none. `at_ns` is when it was received, CLOCK_REALTIME nanoseconds.
int rw_idle_next(rw_idle *idle, int64_t *at_ns);
/// The protocol error or errno that ended the connection, in words.
void rw_idle_error(const rw_idle *idle, char *why, size_t size);
/// Releases the notification and disconnects.
void rw_idle_close(rw_idle *idle);

#endif
