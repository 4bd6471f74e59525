// Most of this target is in its header; what needs a feature macro is here.
#define _GNU_SOURCE
#include <string.h>
#include "CRetimeLinux.h"

void *retime_memmem(const void *haystack, size_t length, const void *needle, size_t needle_length) {
    return memmem(haystack, length, needle, needle_length);
}
