// A pane's one polite live region. Progress arrives per chunk, far faster
// than anyone can listen: the region is rewritten at most every few
// seconds, at once only when the scan's state changes (queued, running,
// over), so a screen reader is not flooded.

/** Least time between two routine updates of the region. */
const LIVE_INTERVAL_MS = 3000;

export class LiveStatus {
  private lastWrite = 0;
  private pending: string | null = null;
  private timer: number | undefined;

  constructor(private readonly region: HTMLElement) {}

  /** Shows `text` now when `urgent` (a change of state), otherwise when the interval allows. */
  say(text: string, urgent: boolean): void {
    const now = Date.now();
    if (urgent || now - this.lastWrite >= LIVE_INTERVAL_MS) {
      this.write(text, now);
      return;
    }
    this.pending = text;
    if (this.timer === undefined) {
      this.timer = window.setTimeout(
        () => {
          this.timer = undefined;
          if (this.pending !== null) this.write(this.pending, Date.now());
        },
        LIVE_INTERVAL_MS - (now - this.lastWrite),
      );
    }
  }

  private write(text: string, now: number): void {
    this.pending = null;
    window.clearTimeout(this.timer);
    this.timer = undefined;
    this.lastWrite = now;
    this.region.textContent = text;
  }
}
