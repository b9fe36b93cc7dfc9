// Gives a test file one network-namespace host for all its tests, created
// before the first and torn down after the last, even when tests fail.
import { afterAll, beforeAll } from 'vitest';

import { createNetnsHost, type NetnsHost, type NetnsHostOptions } from '../../support/netns-host.js';

/** Registers the hooks; call the returned function inside tests. */
export function useNetnsHost(options?: NetnsHostOptions): () => NetnsHost {
  let host: NetnsHost | undefined;
  beforeAll(async () => {
    host = await createNetnsHost(options);
  });
  afterAll(async () => {
    await host?.close();
  });
  return () => {
    if (host === undefined) throw new Error('the namespace host exists only inside tests');
    return host;
  };
}
