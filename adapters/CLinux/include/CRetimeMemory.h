// What an idle daemon gives back after its first pass (docs/performance.md,
// "Daemon"): the heap its start freed, and the mapping of the code only its
// start ran.
#ifndef CRETIME_MEMORY_H
#define CRETIME_MEMORY_H

/// Returns the heap's free pages to the kernel (`malloc_trim(0)`, every
/// arena), and drops this process's mapping of the executable's read-only
/// segments (its code and constants: `madvise(MADV_DONTNEED)`). Those pages
/// are the file's, unchanged (no segment without write permission is ever
/// written), so they stay in the page cache and come back on the next touch
/// as a minor fault; what the process does next maps only what it runs.
/// Returns the bytes of the segments released, or -1 if one could not be.
long retime_release_idle_memory(void);

#endif
