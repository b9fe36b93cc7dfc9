// The one way a probe talks to a port: a TCP connection whose every wait is
// bounded by the path it measured (a reply may take 4 connect times, never
// less than a floor), whose reads stop at 64 KiB, that takes one of the
// call's connection slots and that dies when the call's stage cap ends.
// Nothing here throws or rejects: a failure is null or fewer bytes.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type ConnectionOptions, type TLSSocket, connect as tlsConnect } from 'node:tls';

import type { ConnectionSlots } from './connection-slots.js';

/** The shortest wait for a reply (loopback connects take ~0 ms). */
export const REPLY_FLOOR_MS = 200;
/** A reply may take this many connect times. */
export const REPLY_CONNECT_TIMES = 4;
/** Longest wait for a TCP connect. */
const CONNECT_TIMEOUT_MS = 3000;
/** Most bytes read from one connection. */
export const MAX_READ_BYTES = 64 * 1024;

/** Where a probe connects, and what bounds it. */
export interface ProbeTarget {
  ip: string;
  port: number;
  /** Aborts at the stage cap: every connection is destroyed. */
  signal: AbortSignal;
  slots: ConnectionSlots;
}

/** The wait for a reply on a path whose TCP connect took `connectMs`. */
export function replyWaitMs(connectMs: number): number {
  return Math.max(REPLY_FLOOR_MS, Math.ceil(REPLY_CONNECT_TIMES * connectMs));
}

/** A connected probe socket (TCP, or TLS once started). */
export class ProbeConnection {
  readonly #raw: Socket;
  #stream: Socket | TLSSocket;
  #received = 0;
  readonly #release: () => void;
  readonly #signal: AbortSignal;
  readonly #onAbort = () => this.close();
  /** How long each reply may take on this connection. */
  readonly replyWaitMs: number;

  private constructor(socket: Socket, connectMs: number, release: () => void, signal: AbortSignal) {
    this.#raw = socket;
    this.#stream = socket;
    this.#release = release;
    this.#signal = signal;
    this.replyWaitMs = replyWaitMs(connectMs);
    socket.once('close', () => this.close());
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Takes a slot and connects; null when it cannot (refused, timed out, aborted). */
  static async open(target: ProbeTarget): Promise<ProbeConnection | null> {
    const release = await target.slots.acquire(target.signal);
    if (release === null) return null;
    const started = performance.now();
    const socket = connect({ host: target.ip, port: target.port, noDelay: true });
    socket.on('error', () => {}); // an error is a close; never an uncaught exception
    const connected = await new Promise<boolean>((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        target.signal.removeEventListener('abort', onAbort);
        socket.off('connect', onConnect);
        socket.off('close', onClose);
        resolve(ok);
      };
      const onConnect = () => finish(true);
      const onClose = () => finish(false);
      const onAbort = () => finish(false);
      const timer = setTimeout(onAbort, CONNECT_TIMEOUT_MS);
      socket.once('connect', onConnect);
      socket.once('close', onClose);
      target.signal.addEventListener('abort', onAbort, { once: true });
    });
    if (!connected || target.signal.aborted) {
      socket.destroy();
      release();
      return null;
    }
    return new ProbeConnection(socket, performance.now() - started, release, target.signal);
  }

  /**
   * Starts TLS on this connection; resolves the TLS socket once the
   * handshake completes, or null (and closes) when it fails or outlasts a
   * reply wait.
   */
  startTls(options: ConnectionOptions): Promise<TLSSocket | null> {
    if (this.#raw.destroyed) return Promise.resolve(null);
    let secure: TLSSocket;
    try {
      secure = tlsConnect({ ...options, socket: this.#raw });
    } catch {
      this.close();
      return Promise.resolve(null);
    }
    secure.on('error', () => {});
    this.#stream = secure;
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        secure.off('secureConnect', onSecure);
        secure.off('close', onFail);
        secure.off('error', onFail);
        if (!ok) this.close();
        resolve(ok ? secure : null);
      };
      const onSecure = () => finish(true);
      const onFail = () => finish(false);
      const timer = setTimeout(onFail, this.replyWaitMs);
      secure.once('secureConnect', onSecure);
      secure.once('close', onFail);
      secure.once('error', onFail);
    });
  }

  /**
   * Writes `request` (if any) and reads until `enough(all bytes read in this
   * exchange)` says so, the peer closes, the reply wait ends or the
   * connection's byte budget is spent; resolves what arrived (maybe nothing).
   */
  ask(request: string | Buffer | null, enough: (received: Buffer) => boolean): Promise<Buffer> {
    const stream = this.#stream;
    if (stream.destroyed) return Promise.resolve(Buffer.alloc(0));
    const buffer = Buffer.allocUnsafe(MAX_READ_BYTES - this.#received);
    const whole = (received: Buffer) => {
      try {
        return enough(received);
      } catch {
        return true; // a check that cannot read the bytes: nothing more to wait for
      }
    };
    let length = 0;
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        stream.off('data', onData);
        stream.off('end', finish);
        stream.off('close', finish);
        if (!stream.destroyed) stream.pause();
        resolve(buffer.subarray(0, length));
      };
      const onData = (chunk: Buffer) => {
        const kept = chunk.copy(buffer, length, 0, Math.min(chunk.length, buffer.length - length));
        length += kept;
        this.#received += kept;
        if (length >= buffer.length) {
          finish();
          this.close(); // the budget is spent: read no more
        } else if (whole(buffer.subarray(0, length))) finish();
      };
      const timer = setTimeout(finish, this.replyWaitMs);
      stream.on('data', onData);
      stream.once('end', finish);
      stream.once('close', finish);
      stream.resume();
      if (request !== null) stream.write(request);
    });
  }

  /** Destroys the connection and frees its slot (idempotent). */
  close(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#stream.destroy();
    this.#raw.destroy();
    this.#release();
  }
}
