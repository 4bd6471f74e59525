// The process-events connector, pidfds and sock_diag (see CRetimeNet.h).
#define _GNU_SOURCE
#include "CRetimeNet.h"

#ifdef __linux__
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/// Where an event's fields lie in a datagram: netlink header, then the
/// connector's header, then the event.
#define EVENT_OFFSET(field) (NLMSG_HDRLEN + offsetof(struct cn_msg, data) + offsetof(struct proc_event, field))

int retime_proc_events_open(void) {
    int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
    if (fd < 0) return -1;
    // A classic BPF filter reads words in network byte order; the kernel
    // writes `what` in the host's. A fork whose child's pid is not its
    // thread group's is a new thread, not a process: dropped (comparing two
    // words needs no byte order).
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, EVENT_OFFSET(what)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_EXEC), 8, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_COMM), 7, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_FORK), 1, 0),
        BPF_STMT(BPF_RET | BPF_K, 0),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, EVENT_OFFSET(event_data.fork.child_pid)),
        BPF_STMT(BPF_MISC | BPF_TAX, 0),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, EVENT_OFFSET(event_data.fork.child_tgid)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, 0),
        BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
    };
    struct sock_fprog program = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
    struct sockaddr_nl address = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof(program)) < 0
        || bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    // A busy machine forks in bursts: room for them, so fewer are dropped
    // (a drop costs a reading of every process). Best effort: the kernel
    // caps it at rmem_max for anyone but root.
    int room = 4 * 1024 * 1024;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof(room)) < 0) {
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room, sizeof(room));
    }
    // The request: netlink header, connector header, then the operation.
    char listen[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))] __attribute__((aligned(NLMSG_ALIGNTO))) = {0};
    struct nlmsghdr *header = (struct nlmsghdr *)listen;
    header->nlmsg_len = sizeof(listen);
    header->nlmsg_type = NLMSG_DONE;
    header->nlmsg_pid = (unsigned int)getpid();
    struct cn_msg *message = NLMSG_DATA(header);
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof(enum proc_cn_mcast_op);
    enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
    memcpy(message->data, &op, sizeof(op));
    if (send(fd, listen, sizeof(listen), 0) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int retime_proc_events_read(int fd, retime_proc_event *events, int capacity, int *overflowed) {
    int count = 0;
    *overflowed = 0;
    for (;;) {
        // Stop before a datagram could no longer be kept: what stays queued
        // is read at the next call, in order.
        if (count + 64 > capacity) return count;
        char buffer[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
        ssize_t length = recv(fd, buffer, sizeof(buffer), 0);
        if (length < 0) {
            if (errno == ENOBUFS) { *overflowed = 1; continue; }
            return count;
        }
        if (length == 0) return count;
        for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, (size_t)length);
             header = NLMSG_NEXT(header, length)) {
            struct cn_msg *message = NLMSG_DATA(header);
            if (header->nlmsg_len < NLMSG_LENGTH(sizeof(*message) + sizeof(struct proc_event))) continue;
            struct proc_event *event = (struct proc_event *)message->data;
            retime_proc_event found = {0, -1, 0};
            if (event->what == PROC_EVENT_EXEC) {
                found = (retime_proc_event){RETIME_PROC_EXEC, event->event_data.exec.process_tgid, 0};
            } else if (event->what == PROC_EVENT_COMM) {
                // The thread renamed: /proc shows a thread's own name at its id.
                found = (retime_proc_event){RETIME_PROC_COMM, event->event_data.comm.process_pid, 0};
            } else if (event->what == PROC_EVENT_FORK && event->event_data.fork.child_pid == event->event_data.fork.child_tgid) {
                found = (retime_proc_event){RETIME_PROC_FORK, event->event_data.fork.child_tgid, event->event_data.fork.parent_tgid};
            }
            if (found.pid <= 0) continue;
            if (count < capacity) events[count++] = found; else *overflowed = 1;
        }
    }
}

int retime_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int retime_pidfd_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

/// Whether `remote` (the socket's remote address as sock_diag reports it:
/// four words, IPv4 in the first) is among the packed `addresses`.
static int matches(int family, const uint32_t *remote, const unsigned char *addresses, int count, int length) {
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    const unsigned char *bytes = (const unsigned char *)remote;
    for (int index = 0; index < count; index++) {
        const unsigned char *address = addresses + (size_t)index * (size_t)length;
        if (length == 4 && family == AF_INET && memcmp(bytes, address, 4) == 0) return 1;
        if (length == 4 && family == AF_INET6 && memcmp(bytes, mapped, 12) == 0 && memcmp(bytes + 12, address, 4) == 0) return 1;
        if (length == 16 && family == AF_INET6 && memcmp(bytes, address, 16) == 0) return 1;
    }
    return 0;
}

/// Sends one sock_diag request and reads until its dump (or its ack) ends;
/// with `found`, collects the matching sockets' ids.
static int request(int fd, struct inet_diag_req_v2 *body, int dump, unsigned int uid, const unsigned char *addresses, int count,
                   int length, struct inet_diag_sockid *found, int capacity, int *found_count) {
    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 body;
    } message = {0};
    message.header.nlmsg_len = sizeof(message);
    message.header.nlmsg_type = dump ? SOCK_DIAG_BY_FAMILY : SOCK_DESTROY;
    message.header.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
    message.body = *body;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(fd, &message, sizeof(message), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) return -1;
    for (;;) {
        char buffer[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
        ssize_t received = recv(fd, buffer, sizeof(buffer), 0);
        if (received < 0) { if (errno == EINTR) continue; return -1; }
        for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, (size_t)received);
             header = NLMSG_NEXT(header, received)) {
            if (header->nlmsg_type == NLMSG_DONE) return 0;
            if (header->nlmsg_type == NLMSG_ERROR) {
                struct nlmsgerr *error = NLMSG_DATA(header);
                if (error->error == 0) return 0;
                errno = -error->error;
                return -1;
            }
            if (!dump || header->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg))) continue;
            struct inet_diag_msg *socket = NLMSG_DATA(header);
            if (socket->idiag_uid == uid && matches(socket->idiag_family, socket->id.idiag_dst, addresses, count, length)
                && *found_count < capacity) {
                found[(*found_count)++] = socket->id;
            }
        }
    }
}

int retime_destroy_connections(unsigned int uid, const unsigned char *addresses, int count, int length) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return -1;
    int destroyed = 0, failure = 0;
    int families[2] = {AF_INET, AF_INET6};
    for (int which = 0; which < 2; which++) {
        if (length == 16 && families[which] == AF_INET) continue;
        enum { capacity = 4096 };
        struct inet_diag_sockid *found = malloc(capacity * sizeof(*found));
        if (!found) { failure = ENOMEM; continue; }
        int found_count = 0;
        struct inet_diag_req_v2 body = {0};
        body.sdiag_family = (unsigned char)families[which];
        body.sdiag_protocol = IPPROTO_TCP;
        // Every state but listening and closed: established, connecting,
        // and the rest of a live connection's life.
        body.idiag_states = ((1u << (TCP_CLOSING + 1)) - 1) & ~((1u << TCP_LISTEN) | (1u << TCP_CLOSE));
        if (request(fd, &body, 1, uid, addresses, count, length, found, capacity, &found_count) < 0) failure = errno;
        for (int index = 0; index < found_count; index++) {
            body.id = found[index];
            if (request(fd, &body, 0, uid, addresses, count, length, NULL, 0, NULL) == 0) destroyed++; else failure = errno;
        }
        free(found);
    }
    close(fd);
    if (destroyed == 0 && failure != 0) { errno = failure; return -1; }
    return destroyed;
}
#endif
