// A mistake in how `selfscan check` was called (flags, ports, policy
// file): reported with the usage, exit code 2, before anything is sent.

/** A usage mistake; its message says what to fix. */
export class UsageError extends Error {
  override name = 'UsageError';
}
