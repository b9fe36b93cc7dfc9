// The scanner's readiness backends by name (native/core/poller.h), apart
// from the addon so the configuration can name them without loading it.

/** A readiness backend of the engine. */
export const POLLERS = ['epoll', 'kqueue', 'poll'] as const;
export type PollerName = (typeof POLLERS)[number];

/** What `scanner.poller` and `createScanner({ poller })` accept: `auto` is the platform's choice. */
export const POLLER_CHOICES = ['auto', ...POLLERS] as const;
export type PollerChoice = (typeof POLLER_CHOICES)[number];
