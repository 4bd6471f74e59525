import CRetimeLinux

/// What the daemon gives back once its start is behind it and it goes to
/// sleep: a process that waits hours between wakes should not keep the
/// pages only its start used. The heap its start freed goes back to the
/// kernel (`malloc_trim`), and the mapping of the executable's code and
/// constants is dropped (the pages stay in the page cache, clean; the next
/// wake maps back the few it runs). Measured in docs/performance.md,
/// "Daemon" (bench/size.sh, bench/compare.sh).
public enum IdleMemory {
    /// Releases them; returns the bytes of the executable's read-only
    /// segments released, or nil if the kernel refused one.
    @discardableResult
    public static func release() -> Int? {
        let released = retime_release_idle_memory()
        return released < 0 ? nil : released
    }
}
