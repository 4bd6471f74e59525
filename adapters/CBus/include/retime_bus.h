// A small face of sd-bus for Swift: libsystemd opened at run time (the
// release binary is static and cannot link a shared library), the vtable
// built from a list (sd-bus's macros do not import), no variadic calls.
// Buses and messages are opaque pointers; every message a caller gets
// with `rb_new_*` or `rb_call` or `rb_ref` is its own to `rb_unref`.
#ifndef RETIME_BUS_H
#define RETIME_BUS_H
#include <stddef.h>
#include <stdint.h>

/// Opens libsystemd once; 0, or -1 with `why` filled (dlerror's words).
int rb_load(char *why, size_t size);

/// sd_bus_open_user (system == 0) or sd_bus_open_system: 0 or -errno.
int rb_open(int system, void **bus);
/// A bus at `address` (a D-Bus address), as a client of its bus daemon: 0 or -errno.
int rb_open_address(const char *address, void **bus);
void rb_close(void *bus);
int rb_fd(void *bus);
int rb_events(void *bus);
/// The next timeout, CLOCK_MONOTONIC microseconds (UINT64_MAX: none).
uint64_t rb_timeout(void *bus);
int rb_process(void *bus);
int rb_request_name(void *bus, const char *name);

/// One member of an exported interface.
typedef struct {
    int kind;               // 0 method, 1 property (emits PropertiesChanged), 2 signal
    const char *name;
    const char *signature;  // a method's arguments, a property's or signal's type
    const char *result;     // a method's result ("" for none)
} rb_member;

/// Appends property `name`'s value to `reply`: >= 0, or -errno.
typedef int (*rb_get_fn)(void *context, const char *name, void *reply);
/// Handles a method call; returns 1 when it will reply (rb_reply_*), or -errno.
typedef int (*rb_call_fn)(void *context, void *message);
/// Receives a matched signal.
typedef void (*rb_signal_fn)(void *context, void *message);

/// Exports `members` at `path` under `interface`; the vtable and the
/// members' strings are copied. 0 or -errno.
int rb_add_object(void *bus, const char *path, const char *interface, const rb_member *members, size_t count,
                  rb_get_fn get, rb_call_fn call, void *context);
int rb_emit_changed(void *bus, const char *path, const char *interface, char **names);
int rb_match_signal(void *bus, const char *sender, const char *path, const char *interface, const char *member,
                    rb_signal_fn handler, void *context);

int rb_new_call(void *bus, const char *destination, const char *path, const char *interface, const char *member, void **message);
int rb_new_signal(void *bus, const char *path, const char *interface, const char *member, void **message);
/// Sends `call` and waits for its reply (at most `usec`); on an error
/// the D-Bus error's name and message are written to `why`.
int rb_call(void *bus, void *call, uint64_t usec, void **reply, char *why, size_t size);
int rb_send(void *bus, void *message);
int rb_reply_empty(void *call);
/// A method return to `call`, for the caller to fill, `rb_send` and `rb_unref`.
int rb_new_reply(void *call, void **reply);
int rb_reply_error(void *call, const char *name, const char *text);
void *rb_ref(void *message);
void rb_unref(void *message);
const char *rb_member_of(void *message);

int rb_append_basic(void *message, char type, const void *value);
int rb_open_container(void *message, char type, const char *contents);
int rb_close_container(void *message);
int rb_read_basic(void *message, char type, void *value);
int rb_enter(void *message, char type, const char *contents);
int rb_exit(void *message);
/// The next element's type and contents; 0 at the end of a container.
int rb_peek(void *message, char *type, const char **contents);
int rb_skip(void *message);
#endif
