// An error answer written within a uWS callback (or a cork), for the routes
// served outside the request wrapper (/healthz, /metrics).
import type { ErrorAnswer } from '../api/api-error.js';
import type { HttpResponse } from './seam.js';

export function writeAnswer(res: HttpResponse, answer: ErrorAnswer): void {
  res.writeStatus(answer.status).writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(answer.headers)) res.writeHeader(name, value);
  res.end(JSON.stringify(answer.body));
}
