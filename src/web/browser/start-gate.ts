// The start buttons and what stands between them and a scan: the edge
// limit's remaining budget, shown after each answer, and a refusal's wait.
// A 429 disables both buttons and counts down its Retry-After, a second at
// a time, beside the plain-words reason (announced once, by #notice).
import type { LimitFacts } from '../page-data.js';
import { refusalWords } from '../refusal-words.js';
import { byId, el } from './dom.js';
import type { Budget } from './scan-request.js';

function windowWords(windowSeconds: number): string {
  if (windowSeconds === 60) return 'this minute';
  if (windowSeconds % 3600 === 0) return `in this ${windowSeconds / 3600} h window`;
  if (windowSeconds % 60 === 0) return `in this ${windowSeconds / 60} min window`;
  return `in this ${windowSeconds} s window`;
}

export class StartGate {
  private readonly buttons: HTMLButtonElement[];
  private readonly budget = byId('budget');
  private readonly notice = byId('notice');
  private readonly countdown = byId('retry');
  private until = 0;
  private timer: number | undefined;

  constructor(
    form: HTMLFormElement,
    private readonly edge: LimitFacts,
  ) {
    this.buttons = [...form.querySelectorAll('button')];
  }

  /** Whether a scan may start now (no wait running). */
  get open(): boolean {
    return this.timer === undefined;
  }

  /**
   * Shows the edge limit's budget from an answer's headers. A 429 from a
   * scan limit (deep per address, per ASN) carries that limit's headers
   * instead: told apart by its maximum, they are left to the notice.
   */
  showBudget(budget: Budget | null, status: number): void {
    if (budget === null || (status === 429 && budget.limit !== this.edge.max)) return;
    this.budget.textContent = `${budget.remaining} of ${budget.limit} requests left ${windowWords(this.edge.windowSeconds)}.`;
  }

  /** Clears a refusal shown before. */
  clearNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
  }

  /** Shows why a start was refused, in plain words and the service's own; with a wait, counts it down. */
  refuse(error: string, reason: string, retryAfter: number | null, family: string | null): void {
    const where = family === null ? '' : `${family}: `;
    this.notice.replaceChildren(el('strong', '', {}, `${where}No scan started. `), refusalWords(error, reason));
    if (reason !== '') this.notice.append(' ', el('span', 'reason', {}, `(The service said: “${reason}”.)`));
    if (retryAfter !== null) {
      this.notice.append(` You can try again in ${retryAfter} seconds.`);
      this.wait(retryAfter);
    }
    this.notice.hidden = false;
  }

  private wait(seconds: number): void {
    this.until = Math.max(this.until, Date.now() + seconds * 1000);
    for (const button of this.buttons) button.disabled = true;
    this.countdown.hidden = false;
    window.clearInterval(this.timer);
    this.tick();
    this.timer = window.setInterval(() => this.tick(), 1000);
  }

  private tick(): void {
    const left = Math.ceil((this.until - Date.now()) / 1000);
    if (left > 0) {
      this.countdown.textContent = `Try again in ${left} s`;
      return;
    }
    window.clearInterval(this.timer);
    this.timer = undefined;
    this.countdown.hidden = true;
    this.countdown.textContent = '';
    for (const button of this.buttons) button.disabled = false;
  }
}
