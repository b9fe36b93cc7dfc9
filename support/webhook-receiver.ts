// A webhook receiver on loopback that records what it gets and answers
// what each test tells it to.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How to answer a request to a path: a status, or a status after a delay. */
export type Answer = number | { status: number; delayMs?: number; headers?: Record<string, string> };

export interface Receiver {
  url: (path: string) => string;
  received: ReceivedHook[];
  /** Answers for `path`, used in order; the last one repeats. Default 200. */
  answer(path: string, ...answers: Answer[]): void;
  /** Resolves when `count` requests reached `path` (or rejects after timeoutMs). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const received: ReceivedHook[] = [];
  const answers = new Map<string, Answer[]>();
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body, at: Date.now() });
      const queue = answers.get(path) ?? [200];
      const next = queue.length > 1 ? queue.shift()! : queue[0]!;
      const { status, delayMs = 0, headers = {} } = typeof next === 'number' ? { status: next } : next;
      setTimeout(() => response.writeHead(status, headers).end('ok'), delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    received,
    answer: (path, ...list) => answers.set(path, list),
    waitFor: async (path, count, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hits = received.filter((hook) => hook.path === path);
        if (hits.length >= count) return hits;
        if (Date.now() > deadline) throw new Error(`${path}: ${hits.length} of ${count} webhooks after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
