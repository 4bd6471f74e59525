// sd-bus's declarations (Debian: libsystemd-dev). No `link`: the library is
// opened at run time (CRetimeBus), so the static release binary links it
// not at all and runs where libsystemd is missing (no D-Bus, said by doctor).
#include <systemd/sd-bus.h>
