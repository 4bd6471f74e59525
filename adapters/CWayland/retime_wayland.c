// A compositor's idle notifications through libwayland-client, opened at
// run time: see retime_wayland.h.
#include "retime_wayland.h"
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client-core.h>

struct wl_registry;

static struct {
    struct wl_display *(*connect_to_fd)(int);
    void (*disconnect)(struct wl_display *);
    int (*get_error)(struct wl_display *);
    int (*prepare_read)(struct wl_display *);
    void (*cancel_read)(struct wl_display *);
    int (*read_events)(struct wl_display *);
    int (*dispatch_pending)(struct wl_display *);
    int (*flush)(struct wl_display *);
    struct wl_proxy *(*constructor)(struct wl_proxy *, uint32_t, union wl_argument *, const struct wl_interface *);
    struct wl_proxy *(*constructor_versioned)(struct wl_proxy *, uint32_t, union wl_argument *, const struct wl_interface *, uint32_t);
    void (*marshal)(struct wl_proxy *, uint32_t, union wl_argument *);
    int (*add_listener)(struct wl_proxy *, void (**)(void), void *);
    void (*destroy)(struct wl_proxy *);
    const struct wl_interface *registry, *callback, *seat;
} wl;

// The two protocols' interfaces, as wayland-scanner would write them from
// ext-idle-notify-v1.xml and KDE's idle.xml (requests and events in their
// order there; "n" a new object, "o" an object, "u" a uint). The types
// that point at libwayland's own wl_seat are filled in once it is loaded.
static const struct wl_interface *no_types[3];
static const struct wl_interface *ext_get_types[3];   // new notification, timeout, seat
static const struct wl_interface *kde_get_types[3];   // new timeout, seat, timeout

static const struct wl_message ext_notification_requests[] = {{"destroy", "", no_types}};
static const struct wl_message ext_notification_events[] = {{"idled", "", no_types}, {"resumed", "", no_types}};
static const struct wl_interface ext_notification = {"ext_idle_notification_v1", 1, 1, ext_notification_requests, 2, ext_notification_events};
static const struct wl_message ext_notifier_requests[] = {{"destroy", "", no_types}, {"get_idle_notification", "nuo", ext_get_types}};
static const struct wl_interface ext_notifier = {"ext_idle_notifier_v1", 1, 2, ext_notifier_requests, 0, NULL};

static const struct wl_message kde_timeout_requests[] = {{"release", "", no_types}, {"simulate_user_activity", "", no_types}};
static const struct wl_message kde_timeout_events[] = {{"idle", "", no_types}, {"resumed", "", no_types}};
static const struct wl_interface kde_timeout = {"org_kde_kwin_idle_timeout", 1, 2, kde_timeout_requests, 2, kde_timeout_events};
static const struct wl_message kde_idle_requests[] = {{"get_idle_timeout", "nou", kde_get_types}};
static const struct wl_interface kde_idle = {"org_kde_kwin_idle", 1, 1, kde_idle_requests, 0, NULL};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded = -1;

#define LOAD(field, symbol) \
    if (!(*(void **)&wl.field = dlsym(library, symbol))) { snprintf(load_error, sizeof load_error, "libwayland-client has no %s", symbol); return; }

static void load(void) {
    void *library = dlopen("libwayland-client.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "libwayland-client cannot be opened (%s)", why ? why : "libwayland-client.so.0");
        return;
    }
    LOAD(connect_to_fd, "wl_display_connect_to_fd") LOAD(disconnect, "wl_display_disconnect") LOAD(get_error, "wl_display_get_error")
    LOAD(prepare_read, "wl_display_prepare_read") LOAD(cancel_read, "wl_display_cancel_read") LOAD(read_events, "wl_display_read_events")
    LOAD(dispatch_pending, "wl_display_dispatch_pending") LOAD(flush, "wl_display_flush")
    LOAD(constructor, "wl_proxy_marshal_array_constructor") LOAD(constructor_versioned, "wl_proxy_marshal_array_constructor_versioned")
    LOAD(marshal, "wl_proxy_marshal_array") LOAD(add_listener, "wl_proxy_add_listener") LOAD(destroy, "wl_proxy_destroy")
    LOAD(registry, "wl_registry_interface") LOAD(callback, "wl_callback_interface") LOAD(seat, "wl_seat_interface")
    ext_get_types[0] = &ext_notification;
    ext_get_types[2] = wl.seat;
    kde_get_types[0] = &kde_timeout;
    kde_get_types[1] = wl.seat;
    loaded = 0;
}

int rw_load(char *why, size_t size) {
    pthread_once(&once, load);
    if (loaded != 0 && why && size) snprintf(why, size, "%s", load_error);
    return loaded;
}

enum { QUEUE = 64 };

struct rw_idle {
    struct wl_display *display;
    int fd;
    struct wl_proxy *registry, *seat, *notifier, *notification;
    uint32_t seat_name, ext_name, kde_name;
    int protocol;
    // Received and not yet taken (a ring); when full, the newest replaces
    // the last, so the latest state is never lost.
    struct { int idle; int64_t at; } events[QUEUE];
    int first, count;
};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)registry;
    (void)version;
    struct rw_idle *idle = data;
    if (!idle->seat_name && strcmp(interface, "wl_seat") == 0) idle->seat_name = name;
    else if (strcmp(interface, ext_notifier.name) == 0) idle->ext_name = name;
    else if (strcmp(interface, kde_idle.name) == 0) idle->kde_name = name;
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data;
    (void)registry;
    (void)name;
}

static const struct {
    void (*global)(void *, struct wl_registry *, uint32_t, const char *, uint32_t);
    void (*global_remove)(void *, struct wl_registry *, uint32_t);
} registry_listener = {global, global_remove};

static void push(struct rw_idle *idle, int state) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int slot = idle->count < QUEUE ? (idle->first + idle->count++) % QUEUE : (idle->first + QUEUE - 1) % QUEUE;
    idle->events[slot].idle = state;
    idle->events[slot].at = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void idled(void *data, struct wl_proxy *notification) {
    (void)notification;
    push(data, 1);
}

static void resumed(void *data, struct wl_proxy *notification) {
    (void)notification;
    push(data, 0);
}

// Both protocols' notifications have the same two events, in the same order.
static const struct {
    void (*idled)(void *, struct wl_proxy *);
    void (*resumed)(void *, struct wl_proxy *);
} notification_listener = {idled, resumed};

static void done(void *data, struct wl_proxy *callback, uint32_t serial) {
    (void)callback;
    (void)serial;
    *(int *)data = 1;
}

static const struct { void (*done)(void *, struct wl_proxy *, uint32_t); } callback_listener = {done};

int rw_idle_prepare(rw_idle *idle) {
    while (wl.prepare_read(idle->display) != 0) {
        if (wl.dispatch_pending(idle->display) < 0) return -1;
    }
    // EAGAIN: the socket is full; the rest goes with the next flush.
    if (wl.flush(idle->display) < 0 && errno != EAGAIN) {
        wl.cancel_read(idle->display);
        return -1;
    }
    return 0;
}

int rw_idle_dispatch(rw_idle *idle, int readable) {
    if (readable) {
        if (wl.read_events(idle->display) < 0) return -1;
    } else {
        wl.cancel_read(idle->display);
    }
    return wl.dispatch_pending(idle->display) < 0 ? -1 : 0;
}

static int64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// wl_display_roundtrip with a deadline: a compositor that does not answer
// must not hang the caller. 0, -1 lost, -2 the deadline passed.
static int roundtrip(rw_idle *idle, int deadline_ms) {
    int answered = 0;
    union wl_argument arguments[1] = {{.o = NULL}};
    struct wl_proxy *callback = wl.constructor((struct wl_proxy *)idle->display, 0 /* wl_display.sync */, arguments, wl.callback);
    if (!callback) return -1;
    wl.add_listener(callback, (void (**)(void))&callback_listener, &answered);
    int64_t deadline = monotonic_ms() + deadline_ms;
    int result = 0;
    while (!answered) {
        if (rw_idle_prepare(idle) < 0) { result = -1; break; }
        int64_t left = deadline - monotonic_ms();
        struct pollfd fd = {.fd = rw_idle_fd(idle), .events = POLLIN};
        int polled = left > 0 ? poll(&fd, 1, (int)left) : 0;
        if (polled < 0 && errno == EINTR) { wl.cancel_read(idle->display); continue; }
        if (polled <= 0) { wl.cancel_read(idle->display); result = polled == 0 ? -2 : -1; break; }
        if (rw_idle_dispatch(idle, 1) < 0) { result = -1; break; }
    }
    wl.destroy(callback);
    return result;
}

void rw_idle_error(const rw_idle *idle, char *why, size_t size) {
    int error = wl.get_error(idle->display);
    snprintf(why, size, "%s", error ? strerror(error) : "the compositor closed the connection");
}

static rw_idle *fail(rw_idle *idle, char *why, size_t size, const char *what) {
    if (why && size) snprintf(why, size, "%s", what);
    rw_idle_close(idle);
    return NULL;
}

rw_idle *rw_idle_open(const char *path, uint32_t timeout_ms, int deadline_ms, char *why, size_t size) {
    if (rw_load(why, size) != 0) return NULL;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        snprintf(why, size, "the display's socket path is too long (%s)", path);
        return NULL;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        snprintf(why, size, "no compositor answers at %s (%s)", path, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    rw_idle *idle = calloc(1, sizeof *idle);
    if (!idle || !(idle->display = wl.connect_to_fd(fd))) {
        free(idle);
        close(fd);
        snprintf(why, size, "libwayland-client could not take the connection to %s", path);
        return NULL;
    }
    idle->fd = fd;
    union wl_argument get[1] = {{.o = NULL}};
    idle->registry = wl.constructor((struct wl_proxy *)idle->display, 1 /* wl_display.get_registry */, get, wl.registry);
    if (!idle->registry) return fail(idle, why, size, "no registry");
    wl.add_listener(idle->registry, (void (**)(void))&registry_listener, idle);
    int answered = roundtrip(idle, deadline_ms);
    if (answered != 0) return fail(idle, why, size, answered == -2 ? "the compositor did not answer in time" : "the compositor closed the connection");
    if (timeout_ms == 0) return idle;
    if (!idle->seat_name) return fail(idle, why, size, "the compositor offers no seat");
    if (!idle->ext_name && !idle->kde_name) return fail(idle, why, size, "the compositor offers neither ext_idle_notifier_v1 nor org_kde_kwin_idle");

    union wl_argument bind_seat[4] = {{.u = idle->seat_name}, {.s = "wl_seat"}, {.u = 1}, {.o = NULL}};
    idle->seat = wl.constructor_versioned(idle->registry, 0 /* wl_registry.bind */, bind_seat, wl.seat, 1);
    const struct wl_interface *interface = idle->ext_name ? &ext_notifier : &kde_idle;
    union wl_argument bind_notifier[4] = {{.u = idle->ext_name ? idle->ext_name : idle->kde_name}, {.s = interface->name}, {.u = 1}, {.o = NULL}};
    idle->notifier = wl.constructor_versioned(idle->registry, 0, bind_notifier, interface, 1);
    if (!idle->seat || !idle->notifier) return fail(idle, why, size, "the seat or the idle notifier could not be bound");
    if (idle->ext_name) {
        union wl_argument get_notification[3] = {{.o = NULL}, {.u = timeout_ms}, {.o = (struct wl_object *)idle->seat}};
        idle->notification = wl.constructor(idle->notifier, 1 /* get_idle_notification */, get_notification, &ext_notification);
        idle->protocol = RW_EXT_IDLE_NOTIFY;
    } else {
        union wl_argument get_timeout[3] = {{.o = NULL}, {.o = (struct wl_object *)idle->seat}, {.u = timeout_ms}};
        idle->notification = wl.constructor(idle->notifier, 0 /* get_idle_timeout */, get_timeout, &kde_timeout);
        idle->protocol = RW_KDE_KWIN_IDLE;
    }
    if (!idle->notification) return fail(idle, why, size, "no idle notification");
    wl.add_listener(idle->notification, (void (**)(void))&notification_listener, idle);
    // A protocol error (a request the compositor refuses) ends the connection here, not later.
    answered = roundtrip(idle, deadline_ms);
    if (answered != 0) {
        char error[200];
        rw_idle_error(idle, error, sizeof error);
        char message[256];
        snprintf(message, sizeof message, "the compositor refused the idle notification (%s)", answered == -2 ? "no answer in time" : error);
        return fail(idle, why, size, message);
    }
    return idle;
}

int rw_idle_offered(const rw_idle *idle) {
    return idle->ext_name ? RW_EXT_IDLE_NOTIFY : idle->kde_name ? RW_KDE_KWIN_IDLE : RW_NO_IDLE;
}

int rw_idle_protocol(const rw_idle *idle) { return idle->protocol; }

// The display's descriptor is the socket it was made from.
int rw_idle_fd(const rw_idle *idle) { return idle->fd; }

int rw_idle_next(rw_idle *idle, int64_t *at_ns) {
    if (idle->count == 0) return -1;
    int state = idle->events[idle->first].idle;
    if (at_ns) *at_ns = idle->events[idle->first].at;
    idle->first = (idle->first + 1) % QUEUE;
    idle->count--;
    return state;
}

void rw_idle_close(rw_idle *idle) {
    if (!idle) return;
    if (idle->notification) {
        union wl_argument none[1] = {{.o = NULL}};
        wl.marshal(idle->notification, 0 /* destroy, release */, none);
        wl.destroy(idle->notification);
    }
    if (idle->notifier) {
        union wl_argument none[1] = {{.o = NULL}};
        if (idle->protocol == RW_EXT_IDLE_NOTIFY) wl.marshal(idle->notifier, 0 /* destroy */, none);
        wl.destroy(idle->notifier);
    }
    if (idle->seat) wl.destroy(idle->seat);
    if (idle->registry) wl.destroy(idle->registry);
    if (idle->display) {
        wl.flush(idle->display);
        wl.disconnect(idle->display);
    }
    free(idle);
}
