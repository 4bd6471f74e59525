// Runs a program detached from the caller, under a small supervisor that
// kills it after a time limit: how hooks and notifications run without
// ever blocking or outliving their welcome. Written in C because the code
// between fork and exec may only make async-signal-safe calls, which Swift
// code cannot promise.
#ifndef CRETIME_SPAWN_H
#define CRETIME_SPAWN_H

/// The most a program's output adds to the log in one run; the rest is
/// dropped and counted in a line of its own.
#define RETIME_HOOK_OUTPUT_LIMIT (64L * 1024)

/// Starts `path` with `argv` and `envp` (NULL-terminated, prepared by the
/// caller) and returns at once: 0 when the supervisor is on its way, -1
/// with errno set when it could not be forked.
///
/// The program runs in a process group of its own with stdin from
/// /dev/null and stdout/stderr appended to `log_path` (or /dev/null when
/// NULL) through the supervisor, at most `RETIME_HOOK_OUTPUT_LIMIT` bytes a
/// run, no other descriptor of the caller inherited. A supervisor, itself
/// detached so the caller may exit, waits for it for at most `timeout_ms`,
/// then kills its whole group. A failure (exit status other than 0, death
/// by a signal, the time limit, exec failing) is appended to the log as one
/// line naming `label`.
int retime_spawn_supervised(const char *path, char *const argv[], char *const envp[],
                            const char *log_path, const char *label, int timeout_ms);

#endif
