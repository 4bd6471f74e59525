// libwayland-client's core declarations (Debian: libwayland-dev): the
// proxy, display and interface types CRetimeWayland is written against.
// No `link`: the library is opened at run time (CRetimeWayland), so the
// static release binary runs where it is missing (no compositor idle time,
// said by doctor).
#include <wayland-client-core.h>
