#define _GNU_SOURCE
#include "CRetimeChild.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

pid_t retime_child_spawn(const char *path, char *const argv[], char *const envp[],
                         int stdin_fd, int stdout_fd, int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int failure = posix_spawn_file_actions_init(&actions);
    if (failure != 0) { errno = failure; return -1; }
    failure = posix_spawnattr_init(&attributes);
    if (failure != 0) { posix_spawn_file_actions_destroy(&actions); errno = failure; return -1; }
    int given[3] = {stdin_fd, stdout_fd, stderr_fd};
    for (int target = 0; target < 3 && failure == 0; target++) {
        if (given[target] >= 0) failure = posix_spawn_file_actions_adddup2(&actions, given[target], target);
    }
    // Only 0, 1 and 2: a child must not hold the caller's locks or files.
    if (failure == 0) failure = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (failure == 0) failure = posix_spawnattr_setsigmask(&attributes, &none);
    if (failure == 0) failure = posix_spawnattr_setsigdefault(&attributes, &all);
    if (failure == 0) failure = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    if (failure == 0) failure = posix_spawn(&pid, path, &actions, &attributes, argv, envp != NULL ? envp : environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failure != 0) { errno = failure; return -1; }
    return pid;
}

int retime_child_wait(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return WTERMSIG(status);
    return status;
}

int retime_write_all(int fd, const void *bytes, size_t count) {
    // SIGPIPE is raised in the writing thread: blocked here, and taken back
    // out of the pending set if this write raised it, so it never reaches
    // the process (whose default action would end it).
    sigset_t pipe_only, before;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
    const char *at = bytes;
    int result = 0;
    while (count > 0) {
        ssize_t written = write(fd, at, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            result = errno;
            break;
        }
        at += written;
        count -= (size_t)written;
    }
    if (result == EPIPE) {
        struct timespec none = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &none) == SIGPIPE) {}
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    return result;
}

int retime_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
