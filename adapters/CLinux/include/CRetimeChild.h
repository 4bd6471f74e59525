// Starts a child process and talks to it over pipes, in place of
// Foundation's Process/Pipe/FileHandle (which the binary no longer links:
// they come with ICU's 30 MB).
#ifndef CRETIME_CHILD_H
#define CRETIME_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated; `envp` NULL means
/// this process's environment) through posix_spawn: its stdin, stdout and
/// stderr are `stdin_fd`, `stdout_fd`, `stderr_fd` where those are >= 0,
/// else this process's own; no other descriptor is inherited, the signal
/// mask is empty and every signal has its default disposition (the daemon
/// blocks some for its signalfd, the pager ignores SIGPIPE). The child
/// stays in this process group (a pager needs the terminal).
/// Returns the child's pid, or -1 with errno set.
pid_t retime_child_spawn(const char *path, char *const argv[], char *const envp[],
                         int stdin_fd, int stdout_fd, int stderr_fd);

/// Waits for `pid` to end (blocking in waitpid, no polling) and returns
/// what Foundation's `terminationStatus` did: the exit status, or the
/// number of the signal that killed it; -1 with errno set on failure.
int retime_child_wait(pid_t pid);

/// Writes all `count` bytes to `fd`, retrying short writes and EINTR.
/// A reader that went away gives EPIPE, never a SIGPIPE that would kill
/// this process. Returns 0, or the errno of the failure.
int retime_write_all(int fd, const void *bytes, size_t count);

/// pipe2(fds, O_CLOEXEC), which the Glibc module does not export.
int retime_pipe_cloexec(int fds[2]);

#endif
