// libsystemd's sd-bus reached through dlopen: see retime_bus.h.
#include "retime_bus.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

static struct {
    int (*open_user)(sd_bus **);
    int (*open_system)(sd_bus **);
    sd_bus *(*flush_close_unref)(sd_bus *);
    int (*new_bus)(sd_bus **);
    int (*set_address)(sd_bus *, const char *);
    int (*set_bus_client)(sd_bus *, int);
    int (*start)(sd_bus *);
    int (*get_fd)(sd_bus *);
    int (*get_events)(sd_bus *);
    int (*get_timeout)(sd_bus *, uint64_t *);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*request_name)(sd_bus *, const char *, uint64_t);
    int (*add_object_vtable)(sd_bus *, sd_bus_slot **, const char *, const char *, const sd_bus_vtable *, void *);
    int (*emit_properties_changed_strv)(sd_bus *, const char *, const char *, char **);
    int (*match_signal)(sd_bus *, sd_bus_slot **, const char *, const char *, const char *, const char *, sd_bus_message_handler_t, void *);
    int (*new_method_call)(sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *);
    int (*new_signal)(sd_bus *, sd_bus_message **, const char *, const char *, const char *);
    int (*call)(sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **);
    int (*send)(sd_bus *, sd_bus_message *, uint64_t *);
    int (*new_method_return)(sd_bus_message *, sd_bus_message **);
    int (*reply_method_error)(sd_bus_message *, const sd_bus_error *);
    int (*error_set)(sd_bus_error *, const char *, const char *);
    void (*error_free)(sd_bus_error *);
    sd_bus_message *(*message_ref)(sd_bus_message *);
    sd_bus_message *(*message_unref)(sd_bus_message *);
    const char *(*get_member)(sd_bus_message *);
    sd_bus *(*get_bus)(sd_bus_message *);
    int (*append_basic)(sd_bus_message *, char, const void *);
    int (*open_container)(sd_bus_message *, char, const char *);
    int (*close_container)(sd_bus_message *);
    int (*read_basic)(sd_bus_message *, char, void *);
    int (*enter_container)(sd_bus_message *, char, const char *);
    int (*exit_container)(sd_bus_message *);
    int (*peek_type)(sd_bus_message *, char *, const char **);
    int (*skip)(sd_bus_message *, const char *);
} sd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded = -1;

#define LOAD(field, symbol) \
    if (!(*(void **)&sd.field = dlsym(library, symbol))) { snprintf(load_error, sizeof load_error, "libsystemd has no %s", symbol); return; }

static void load(void) {
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s", why ? why : "libsystemd.so.0 could not be opened");
        return;
    }
    LOAD(open_user, "sd_bus_open_user") LOAD(open_system, "sd_bus_open_system")
    LOAD(flush_close_unref, "sd_bus_flush_close_unref") LOAD(new_bus, "sd_bus_new") LOAD(set_address, "sd_bus_set_address")
    LOAD(set_bus_client, "sd_bus_set_bus_client") LOAD(start, "sd_bus_start") LOAD(get_fd, "sd_bus_get_fd") LOAD(get_events, "sd_bus_get_events")
    LOAD(get_timeout, "sd_bus_get_timeout") LOAD(process, "sd_bus_process") LOAD(request_name, "sd_bus_request_name")
    LOAD(add_object_vtable, "sd_bus_add_object_vtable") LOAD(emit_properties_changed_strv, "sd_bus_emit_properties_changed_strv")
    LOAD(match_signal, "sd_bus_match_signal") LOAD(new_method_call, "sd_bus_message_new_method_call")
    LOAD(new_signal, "sd_bus_message_new_signal") LOAD(call, "sd_bus_call") LOAD(send, "sd_bus_send")
    LOAD(new_method_return, "sd_bus_message_new_method_return") LOAD(reply_method_error, "sd_bus_reply_method_error")
    LOAD(error_set, "sd_bus_error_set") LOAD(error_free, "sd_bus_error_free")
    LOAD(message_ref, "sd_bus_message_ref") LOAD(message_unref, "sd_bus_message_unref")
    LOAD(get_member, "sd_bus_message_get_member") LOAD(get_bus, "sd_bus_message_get_bus")
    LOAD(append_basic, "sd_bus_message_append_basic") LOAD(open_container, "sd_bus_message_open_container")
    LOAD(close_container, "sd_bus_message_close_container") LOAD(read_basic, "sd_bus_message_read_basic")
    LOAD(enter_container, "sd_bus_message_enter_container") LOAD(exit_container, "sd_bus_message_exit_container")
    LOAD(peek_type, "sd_bus_message_peek_type") LOAD(skip, "sd_bus_message_skip")
    loaded = 0;
}

int rb_load(char *why, size_t size) {
    pthread_once(&once, load);
    if (loaded != 0 && why && size) snprintf(why, size, "%s", load_error);
    return loaded;
}

int rb_open(int system, void **bus) {
    if (rb_load(NULL, 0) != 0) return -ENOSYS;
    return system ? sd.open_system((sd_bus **)bus) : sd.open_user((sd_bus **)bus);
}
int rb_open_address(const char *address, void **bus) {
    if (rb_load(NULL, 0) != 0) return -ENOSYS;
    sd_bus *made = NULL;
    int result = sd.new_bus(&made);
    if (result < 0) return result;
    if ((result = sd.set_address(made, address)) < 0 || (result = sd.set_bus_client(made, 1)) < 0 || (result = sd.start(made)) < 0) {
        sd.flush_close_unref(made);
        return result;
    }
    *bus = made;
    return 0;
}
void rb_close(void *bus) { if (bus) sd.flush_close_unref(bus); }
int rb_fd(void *bus) { return sd.get_fd(bus); }
int rb_events(void *bus) { return sd.get_events(bus); }
uint64_t rb_timeout(void *bus) {
    uint64_t usec = UINT64_MAX;
    if (sd.get_timeout(bus, &usec) < 0) return UINT64_MAX;
    return usec;
}
int rb_process(void *bus) { return sd.process(bus, NULL); }
int rb_request_name(void *bus, const char *name) { return sd.request_name(bus, name, 0); }

/// What a vtable's callbacks reach: the caller's functions and context.
typedef struct {
    rb_get_fn get;
    rb_call_fn call;
    rb_signal_fn signal;
    void *context;
} handlers;

static int on_get(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                  void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)error;
    const handlers *h = userdata;
    return h->get(h->context, property, reply);
}

static int on_call(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    const handlers *h = userdata;
    return h->call(h->context, message);
}

static int on_signal(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    const handlers *h = userdata;
    h->signal(h->context, message);
    return 0;
}

// The vtable, its strings and the handlers live as long as the process:
// an object is exported once per connection, a few per process.
int rb_add_object(void *bus, const char *path, const char *interface, const rb_member *members, size_t count,
                  rb_get_fn get, rb_call_fn call, void *context) {
    sd_bus_vtable *table = calloc(count + 2, sizeof *table);
    handlers *h = malloc(sizeof *h);
    if (!table || !h) { free(table); free(h); return -ENOMEM; }
    *h = (handlers){ .get = get, .call = call, .context = context };
    table[0].type = _SD_BUS_VTABLE_START;
    table[0].x.start.element_size = sizeof(sd_bus_vtable);
    for (size_t i = 0; i < count; i++) {
        sd_bus_vtable *entry = &table[i + 1];
        const rb_member *m = &members[i];
        switch (m->kind) {
        case 0:
            entry->type = _SD_BUS_VTABLE_METHOD;
            entry->flags = SD_BUS_VTABLE_UNPRIVILEGED;
            entry->x.method.member = strdup(m->name);
            entry->x.method.signature = strdup(m->signature);
            entry->x.method.result = strdup(m->result ? m->result : "");
            entry->x.method.handler = on_call;
            break;
        case 1:
            entry->type = _SD_BUS_VTABLE_PROPERTY;
            entry->flags = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
            entry->x.property.member = strdup(m->name);
            entry->x.property.signature = strdup(m->signature);
            entry->x.property.get = on_get;
            break;
        default:
            entry->type = _SD_BUS_VTABLE_SIGNAL;
            entry->x.signal.member = strdup(m->name);
            entry->x.signal.signature = strdup(m->signature);
            break;
        }
    }
    table[count + 1].type = _SD_BUS_VTABLE_END;
    return sd.add_object_vtable(bus, NULL, strdup(path), strdup(interface), table, h);
}

int rb_emit_changed(void *bus, const char *path, const char *interface, char **names) {
    return sd.emit_properties_changed_strv(bus, path, interface, names);
}

int rb_match_signal(void *bus, const char *sender, const char *path, const char *interface, const char *member,
                    rb_signal_fn handler, void *context) {
    handlers *h = malloc(sizeof *h);
    if (!h) return -ENOMEM;
    *h = (handlers){ .signal = handler, .context = context };
    // A floating slot: the match lives as long as the connection.
    return sd.match_signal(bus, NULL, sender, path, interface, member, on_signal, h);
}

int rb_new_call(void *bus, const char *destination, const char *path, const char *interface, const char *member, void **message) {
    return sd.new_method_call(bus, (sd_bus_message **)message, destination, path, interface, member);
}
int rb_new_signal(void *bus, const char *path, const char *interface, const char *member, void **message) {
    return sd.new_signal(bus, (sd_bus_message **)message, path, interface, member);
}
int rb_call(void *bus, void *call, uint64_t usec, void **reply, char *why, size_t size) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int result = sd.call(bus, call, usec, &error, (sd_bus_message **)reply);
    if (result < 0 && why && size) {
        snprintf(why, size, "%s: %s", error.name ? error.name : "error", error.message ? error.message : strerror(-result));
    }
    sd.error_free(&error);
    return result;
}
int rb_send(void *bus, void *message) { return sd.send(bus, message, NULL); }
int rb_reply_empty(void *call) {
    sd_bus_message *reply = NULL;
    int result = sd.new_method_return(call, &reply);
    if (result < 0) return result;
    result = sd.send(sd.get_bus(call), reply, NULL);
    sd.message_unref(reply);
    return result;
}
int rb_new_reply(void *call, void **reply) { return sd.new_method_return(call, (sd_bus_message **)reply); }
int rb_reply_error(void *call, const char *name, const char *text) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd.error_set(&error, name, text);
    int result = sd.reply_method_error(call, &error);
    sd.error_free(&error);
    return result;
}
void *rb_ref(void *message) { return sd.message_ref(message); }
void rb_unref(void *message) { if (message) sd.message_unref(message); }
const char *rb_member_of(void *message) { return sd.get_member(message); }

int rb_append_basic(void *message, char type, const void *value) { return sd.append_basic(message, type, value); }
int rb_open_container(void *message, char type, const char *contents) { return sd.open_container(message, type, contents); }
int rb_close_container(void *message) { return sd.close_container(message); }
int rb_read_basic(void *message, char type, void *value) { return sd.read_basic(message, type, value); }
int rb_enter(void *message, char type, const char *contents) { return sd.enter_container(message, type, contents); }
int rb_exit(void *message) { return sd.exit_container(message); }
int rb_peek(void *message, char *type, const char **contents) { return sd.peek_type(message, type, contents); }
int rb_skip(void *message) { return sd.skip(message, NULL); }
