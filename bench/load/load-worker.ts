// Callers of bench/load/load.ts run in a worker thread: the MCP callers, whose
// SDK client (zod, undici, streams) costs the harness far more CPU per
// request than the REST callers do. On their own event loop they do not
// delay the REST callers' timings; they still share the machine's cores.
// Times cross threads as epoch milliseconds (each thread has its own
// performance.timeOrigin).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

import { LatencyLog, type LatencySample } from '../lib/load-metrics.js';
import { type CallerOutcome, type CallerPlan, type Flow, type FlowContext, runCaller } from './load-callers.js';

interface WorkerInput {
  loadCallers: true;
  baseUrl: string;
  pollMs: number;
  deadlineEpoch: number;
  plans: CallerPlan[];
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'finished'; flow: Flow }
  | { type: 'done'; outcomes: CallerOutcome[]; samples: LatencySample[]; timeOrigin: number }
  | { type: 'failed'; message: string };

const toEpoch = (now: number): number => performance.timeOrigin + now;
const fromEpoch = (epoch: number): number => epoch - performance.timeOrigin;

export interface WorkerCallers {
  /** Starts the callers; resolves with their outcomes, and their samples added to `latencies`. */
  go(latencies: LatencyLog, onFinished: (flow: Flow) => void): Promise<CallerOutcome[]>;
  terminate(): Promise<void>;
}

/** Starts a worker for `plans` and resolves once it has loaded everything and waits for go(). */
export async function startWorkerCallers(baseUrl: string, plans: CallerPlan[], pollMs: number, deadline: number): Promise<WorkerCallers> {
  const input: WorkerInput = { loadCallers: true, baseUrl, pollMs, deadlineEpoch: toEpoch(deadline), plans };
  // The worker does not inherit tsx's loader: it registers it before importing this file.
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const worker = new Worker(code, { eval: true, workerData: input });
  let onMessage: (message: WorkerMessage) => void = () => {};
  let onError: (error: Error) => void = () => {};
  worker.on('message', (message: WorkerMessage) => onMessage(message));
  worker.on('error', (error) => onError(error));
  worker.on('exit', (code) => onError(new Error(`the callers' worker exited (${code})`)));
  await new Promise<void>((resolve, reject) => {
    onError = reject;
    onMessage = (message) => (message.type === 'ready' ? resolve() : reject(new Error(`worker: ${JSON.stringify(message).slice(0, 200)}`)));
  });
  return {
    go: (latencies, onFinished) =>
      new Promise((resolve, reject) => {
        onError = reject;
        onMessage = (message) => {
          if (message.type === 'finished') return onFinished(message.flow);
          if (message.type === 'failed') return reject(new Error(`the callers' worker failed: ${message.message}`));
          if (message.type !== 'done') return;
          const shift = (t: number): number => fromEpoch(message.timeOrigin + t);
          for (const sample of message.samples) latencies.add(sample.kind, shift(sample.startedAt), sample.ms);
          resolve(message.outcomes.map((o) => ({ ...o, startedAt: shift(o.startedAt), finishedAt: o.finishedAt === null ? null : shift(o.finishedAt) })));
        };
        worker.postMessage('go');
      }),
    terminate: async () => {
      onError = () => {};
      await worker.terminate();
    },
  };
}

async function workerMain(input: WorkerInput): Promise<void> {
  const port = parentPort!;
  if (input.plans.some((plan) => plan.flow === 'mcp')) await import('../../support/mcp-client.js'); // loaded before the start
  const latencies = new LatencyLog();
  const ctx: FlowContext = { baseUrl: input.baseUrl, latencies, inbox: null, pollMs: input.pollMs, deadline: fromEpoch(input.deadlineEpoch) };
  port.once('message', () => {
    Promise.all(
      input.plans.map(async (plan) => {
        const outcome = await runCaller(ctx, plan);
        port.postMessage({ type: 'finished', flow: plan.flow } satisfies WorkerMessage);
        return outcome;
      }),
    ).then(
      (outcomes) => port.postMessage({ type: 'done', outcomes, samples: latencies.all(), timeOrigin: performance.timeOrigin } satisfies WorkerMessage),
      (error: unknown) => port.postMessage({ type: 'failed', message: String(error) } satisfies WorkerMessage),
    );
  });
  port.postMessage({ type: 'ready' } satisfies WorkerMessage);
}

if (!isMainThread && (workerData as Partial<WorkerInput> | null)?.loadCallers === true) {
  workerMain(workerData as WorkerInput).catch((error: unknown) => parentPort!.postMessage({ type: 'failed', message: String(error) } satisfies WorkerMessage));
}
