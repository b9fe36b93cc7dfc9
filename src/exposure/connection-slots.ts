// At most so many probe connections at once per gatherFacts call, so a deep
// scan with hundreds of open ports does not open hundreds of sockets (and
// a scanner node's descriptors) at the same moment.

/** A counting semaphore of connection slots. */
export class ConnectionSlots {
  readonly #waiting: Array<() => void> = [];
  #free: number;

  constructor(size: number) {
    this.#free = size;
  }

  /**
   * Waits for a free slot; resolves its release function (idempotent), or
   * null when `signal` aborts first.
   */
  acquire(signal: AbortSignal): Promise<(() => void) | null> {
    if (signal.aborted) return Promise.resolve(null);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#release());
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.#release());
      };
      const onAbort = () => {
        this.#waiting.splice(this.#waiting.indexOf(grant), 1);
        resolve(null);
      };
      this.#waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #release(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next === undefined) this.#free++;
      else next(); // the slot passes straight on
    };
  }
}
