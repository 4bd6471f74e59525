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
