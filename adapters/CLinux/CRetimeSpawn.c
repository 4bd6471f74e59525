#define _GNU_SOURCE
#include "CRetimeSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// Everything below runs between fork and exec (or _exit): only
// async-signal-safe calls, no allocation, no locks, no stdio.

/// Appends the decimal digits of `value` to `out` at `*at`.
static void put_number(char *out, int *at, long value) {
    char digits[24];
    int count = 0;
    if (value < 0) { out[(*at)++] = '-'; value = -value; }
    do { digits[count++] = (char)('0' + value % 10); value /= 10; } while (value > 0);
    while (count > 0) out[(*at)++] = digits[--count];
}

static void put_padded(char *out, int *at, long value, int width) {
    for (long limit = 10; width > 1; width--, limit *= 10) if (value < limit) out[(*at)++] = '0';
    put_number(out, at, value);
}

static void put_text(char *out, int *at, int capacity, const char *text) {
    while (*text && *at < capacity - 2) out[(*at)++] = *text++;
}

/// One log line in the format of retime's other logs:
/// `2026-11-22T08:20:00+0000 warning retime.hooks: event=LABEL WHAT VALUE`.
static void log_failure(const char *label, const char *what, long value, const char *unit) {
    char line[512];
    int at = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long days = now.tv_sec / 86400, seconds = now.tv_sec % 86400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian, in eras of 400 years).
    long z = days + 719468, era = z / 146097, doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    long day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    long year = yoe + era * 400 + (month <= 2);
    put_padded(line, &at, year, 4); line[at++] = '-';
    put_padded(line, &at, month, 2); line[at++] = '-';
    put_padded(line, &at, day, 2); line[at++] = 'T';
    put_padded(line, &at, seconds / 3600, 2); line[at++] = ':';
    put_padded(line, &at, seconds / 60 % 60, 2); line[at++] = ':';
    put_padded(line, &at, seconds % 60, 2);
    put_text(line, &at, sizeof line, "+0000 warning retime.hooks: event=");
    put_text(line, &at, sizeof line, label);
    line[at++] = ' ';
    put_text(line, &at, sizeof line, what);
    line[at++] = ' ';
    put_number(line, &at, value);
    put_text(line, &at, sizeof line, unit);
    line[at++] = '\n';
    (void)!write(STDERR_FILENO, line, (size_t)at);
}

/// Signal dispositions and the mask back to their defaults: the caller's
/// handlers (the daemon's wake-up pipe) must not run in the children.
static void reset_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; signal++) sigaction(signal, &action, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/// Keeps only stdin, stdout and stderr: a child must not hold the caller's
/// locks (the daemon's single-instance lock, the store's) or files.
static void close_other_descriptors(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    for (int fd = 3; fd < 65536; fd++) close(fd);
}

/// Milliseconds since `start` on the monotonic clock.
static long elapsed_ms(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/// Copies what the hook printed to the log (standard output here), up to
/// `RETIME_HOOK_OUTPUT_LIMIT` bytes a run; counts the rest in `*dropped`.
/// Returns 0 at the end of its output, 1 while it may print more.
static int copy_output(int from, long *kept, long *dropped) {
    char buffer[4096];
    ssize_t count = read(from, buffer, sizeof buffer);
    if (count < 0) return errno == EINTR || errno == EAGAIN;
    if (count == 0) return 0;
    long room = RETIME_HOOK_OUTPUT_LIMIT - *kept;
    long keep = count < room ? count : (room > 0 ? room : 0);
    if (keep > 0) (void)!write(STDOUT_FILENO, buffer, (size_t)keep);
    *kept += keep;
    *dropped += count - keep;
    return 1;
}

static void supervise(const char *path, char *const argv[], char *const envp[], const char *label, int timeout_ms) {
    // The hook prints into a pipe, not into the log: a hook printing 100 MB
    // must not make the log 100 MB.
    int output[2];
    if (pipe(output) != 0) { log_failure(label, "could not be started: errno", errno, ""); return; }
    pid_t child = fork();
    if (child < 0) {
        close(output[0]);
        close(output[1]);
        log_failure(label, "could not be started: errno", errno, "");
        return;
    }
    if (child == 0) {
        setpgid(0, 0);
        dup2(output[1], STDOUT_FILENO);
        dup2(output[1], STDERR_FILENO);
        close(output[0]);
        close(output[1]);
        execve(path, argv, envp);
        log_failure(label, "could not be run: errno", errno, "");
        _exit(127);
    }
    setpgid(child, child);  // also here, so the kill below finds the group whoever runs first
    close(output[1]);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long kept = 0, dropped = 0;
    int status = 0, exited = 0, open_output = 1;
    for (;;) {
        if (!exited) {
            pid_t done = waitpid(child, &status, WNOHANG);
            if (done == child) exited = 1;
            else if (done < 0 && errno != EINTR) break;
        }
        long waited = elapsed_ms(&start);
        if (exited && waited >= timeout_ms) break;   // a child it left behind still printing
        if (!exited && waited >= timeout_ms) {
            kill(-child, SIGKILL);
            while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
            while (open_output && poll(&(struct pollfd){output[0], POLLIN, 0}, 1, 0) > 0) open_output = copy_output(output[0], &kept, &dropped);
            close(output[0]);
            if (dropped > 0) log_failure(label, "printed more than its share; bytes dropped:", dropped, "");
            log_failure(label, "was killed after", timeout_ms / 1000, " s (its time limit)");
            return;
        }
        // Once the hook has exited, what it left in the pipe is copied and
        // the supervisor is done (a child it left behind may keep the pipe
        // open, and is not waited for).
        int wait = exited ? 0 : (int)(timeout_ms - waited < 50 ? timeout_ms - waited : 50);
        if (open_output) {
            struct pollfd ready = {output[0], POLLIN, 0};
            int count = poll(&ready, 1, wait);
            if (count > 0) { open_output = copy_output(output[0], &kept, &dropped); continue; }
            if (count < 0 && errno == EINTR) continue;
        } else if (!exited) {
            struct timespec pause = {0, 10 * 1000000L};
            nanosleep(&pause, NULL);
        }
        if (exited) break;
    }
    close(output[0]);
    if (dropped > 0) log_failure(label, "printed more than its share; bytes dropped:", dropped, "");
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 127) {
        log_failure(label, "failed with exit status", WEXITSTATUS(status), "");
    } else if (WIFSIGNALED(status)) {
        log_failure(label, "was ended by signal", WTERMSIG(status), "");
    }
}

int retime_spawn_supervised(const char *path, char *const argv[], char *const envp[],
                            const char *log_path, const char *label, int timeout_ms) {
    int input = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int output = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
    if (output < 0) output = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (input < 0 || output < 0) {
        int saved = errno;
        if (input >= 0) close(input);
        if (output >= 0) close(output);
        errno = saved;
        return -1;
    }
    pid_t first = fork();
    if (first == 0) {
        // The intermediate process: a new session, then the supervisor
        // forked off and this process gone, so the supervisor belongs to
        // init (or the nearest subreaper), never to the caller.
        reset_signals();
        setsid();
        dup2(input, STDIN_FILENO);
        dup2(output, STDOUT_FILENO);
        dup2(output, STDERR_FILENO);
        close_other_descriptors();
        pid_t supervisor = fork();
        if (supervisor != 0) _exit(supervisor < 0 ? 1 : 0);
        supervise(path, argv, envp, label, timeout_ms);
        _exit(0);
    }
    int saved = errno;
    close(input);
    close(output);
    if (first < 0) { errno = saved; return -1; }
    int status;
    while (waitpid(first, &status, 0) < 0 && errno == EINTR) {}
    return 0;
}
