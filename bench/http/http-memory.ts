// Helpers of bench/http/http.ts: a child process's memory, read after a full
// garbage collection so that figures per stream are not mostly garbage.
import { readFileSync } from 'node:fs';

import { WebSocket } from 'undici';

export interface Memory {
  rssKiB: number;
  anonKiB: number;
  /** V8 heap in use right after the collection. */
  heapKiB: number;
}

/** Runs a full GC in the child through its inspector, then reads /proc/<pid>/status and the V8 heap. */
export async function memoryAfterGc(pid: number, inspectorUrl: string): Promise<Memory> {
  const heapBytes = await inspect(inspectorUrl, async (call) => {
    await call('HeapProfiler.collectGarbage');
    return ((await call('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  });
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: kib('VmRSS'), anonKiB: kib('RssAnon'), heapKiB: heapBytes / 1024 };
}

type Call = (method: string) => Promise<unknown>;

/** One inspector session: `use` calls protocol methods in turn; the session closes after it. */
async function inspect<T>(url: string, use: (call: Call) => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const socket = new WebSocket(url);
  const pending = new Map<number, (result: unknown) => void>();
  let nextId = 1;
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', () => reject(new Error(`cannot reach the inspector at ${url}`)));
  });
  const call: Call = (method) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`inspector: no answer to ${method}`)), timeoutMs);
      pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    return await use(call);
  } finally {
    socket.close();
  }
}
