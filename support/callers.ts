// Clients that call the server from a chosen loopback address: the whole
// 127.0.0.0/8 block is local, so each address is a distinct caller (and,
// with --allow-private-targets, a distinct scan target).
import { Agent, fetch as undiciFetch } from 'undici';

import { validateResponse } from './openapi-validator.js';

export type CallerFetch = (url: string, init?: Parameters<typeof undiciFetch>[1]) => ReturnType<typeof undiciFetch>;

const agents = new Map<string, Agent>();

/** `fetch` whose connections leave from `localAddress`. */
export function callerFetch(localAddress: string): CallerFetch {
  let agent = agents.get(localAddress);
  if (agent === undefined) {
    agent = new Agent({ localAddress, connections: 2048 });
    agents.set(localAddress, agent);
  }
  const dispatcher = agent;
  return (url, init) => undiciFetch(url, { ...init, dispatcher });
}

/** Polls GET `url` until `status` is terminal, validating every body; returns the last. */
export async function pollUntilFinal(fetch: CallerFetch, url: string, timeoutMs = 30_000): Promise<{ status: string } & Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url);
    const body = (await response.json()) as { status: string } & Record<string, unknown>;
    validateResponse('GET', new URL(url).pathname, response.status, body);
    if (!['queued', 'running'].includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`scan at ${url} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
