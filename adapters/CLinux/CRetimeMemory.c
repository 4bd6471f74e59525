// See CRetimeMemory.h.
#define _GNU_SOURCE
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "CRetimeMemory.h"

struct release { long bytes; int failed; };

// The executable's own segments (the first object reported, nameless);
// only those without write permission: a writable one may hold changes
// that MADV_DONTNEED would throw away.
static int release_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct release *release = data;
    if (info->dlpi_name != 0 && info->dlpi_name[0] != 0) { return 1; }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) != 0) { continue; }
        uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + page - 1) & ~(page - 1);
        if (madvise((void *)start, end - start, MADV_DONTNEED) != 0) { release->failed = 1; continue; }
        release->bytes += (long)(end - start);
    }
    return 1;   // the executable is the first object: stop there
}

long retime_release_idle_memory(void) {
    malloc_trim(0);
    struct release release = {0, 0};
    dl_iterate_phdr(release_segments, &release);
    return release.failed ? -1 : release.bytes;
}
