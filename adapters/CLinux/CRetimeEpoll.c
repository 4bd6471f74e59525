// epoll for the name layer (see CRetimeEpoll.h).
#define _GNU_SOURCE
#include "CRetimeEpoll.h"

#ifdef __linux__
#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>

int retime_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int retime_epoll_watch(int epfd, int fd, int output) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | (output ? EPOLLOUT : 0);
    event.data.fd = fd;
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
    if (errno != ENOENT) return -1;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

void retime_epoll_forget(int epfd, int fd) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

int retime_epoll_ready(int epfd, int *fds, int *writable, int capacity) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, 0);
    for (int index = 0; index < count; index++) {
        fds[index] = events[index].data.fd;
        // An error or a hang-up is reported as readable: the read says which.
        writable[index] = (events[index].events & EPOLLOUT) != 0;
    }
    return count;
}
#endif
