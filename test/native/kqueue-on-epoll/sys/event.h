// Tests only, never shipped: the part of the BSDs' <sys/event.h> that
// native/core/poller_kqueue.cc uses, so that backend compiles and runs on
// Linux (kqueue_on_epoll.cc beside this implements it over epoll). Names,
// values and layout follow FreeBSD's header.
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define EVFILT_READ (-1)
#define EVFILT_WRITE (-2)

#define EV_ADD 0x0001
#define EV_DELETE 0x0002
#define EV_ERROR 0x4000
#define EV_EOF 0x8000

struct kevent {
  uintptr_t ident;
  short filter;
  unsigned short flags;
  unsigned int fflags;
  int64_t data;
  void* udata;
};

#define EV_SET(kevp, a, b, c, d, e, f) \
  do {                                 \
    struct kevent* ev_ = (kevp);       \
    ev_->ident = (a);                  \
    ev_->filter = (b);                 \
    ev_->flags = (c);                  \
    ev_->fflags = (d);                 \
    ev_->data = (e);                   \
    ev_->udata = (f);                  \
  } while (0)

extern "C" {
int kqueue(void);
int kevent(int kq, const struct kevent* changelist, int nchanges, struct kevent* eventlist,
           int nevents, const struct timespec* timeout);
}
