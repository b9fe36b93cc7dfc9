// A node:http response as the seam's HttpResponse, with uWS's semantics:
// headers are gathered and written with the first byte of the body, a body
// given whole is sized by Content-Length (a streamed one is chunked), the
// abort handler runs only if the connection closes before the response
// ends, and there is one writable handler. Node answers pipelined requests
// in order by itself, so pausing reads is not needed here.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import { markClosing } from './node-closing-sockets.js';
import { type PeerAddress, peerOf } from './node-peer-address.js';
import { bytesAsText } from './node-recognized-text.js';
import { statusHead } from './node-status-head.js';
import type { HttpResponse, RecognizedString } from './seam.js';

const EMPTY = new ArrayBuffer(0);

export class NodeResponse implements HttpResponse {
  private code = 200;
  private reason = 'OK';
  /** Header names and values, flat, in the order written. */
  private headers: string[] = [];
  private sized = false;
  private headWritten = false;
  private ended = false;
  private writable: ((offset: number) => boolean) | undefined;
  private abortedHandler: (() => void) | undefined;
  private socketClosed: (() => void) | undefined;

  constructor(
    readonly response: ServerResponse,
    private readonly socket: Socket,
  ) {}

  writeStatus(status: RecognizedString): HttpResponse {
    const head = statusHead(status);
    this.code = head.code;
    this.reason = head.reason;
    if (head.headers.length > 0) this.headers.push(...head.headers);
    return this;
  }

  writeHeader(name: RecognizedString, value: RecognizedString): HttpResponse {
    const key = bytesAsText(name);
    if (key.length === 14 && key.toLowerCase() === 'content-length') this.sized = true;
    this.headers.push(key, bytesAsText(value));
    return this;
  }

  private writeHead(length: number | undefined, closeConnection: boolean): void {
    if (this.headWritten) return;
    this.headWritten = true;
    if (length !== undefined && !this.sized) this.headers.push('Content-Length', String(length));
    if (closeConnection) {
      this.response.shouldKeepAlive = false;
      markClosing(this.socket);
    }
    this.response.writeHead(this.code, this.reason, this.headers);
  }

  write(chunk: RecognizedString): boolean {
    this.writeHead(undefined, false);
    return this.response.write(typeof chunk === 'string' ? chunk : asBuffer(chunk));
  }

  end(body?: RecognizedString, closeConnection = false): HttpResponse {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : asBuffer(body);
    this.writeHead(payload === undefined ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length, closeConnection);
    this.finish();
    this.response.end(payload);
    return this;
  }

  endWithoutBody(_reportedContentLength?: number, closeConnection = false): HttpResponse {
    this.writeHead(undefined, closeConnection);
    this.finish();
    this.response.end();
    return this;
  }

  private finish(): void {
    this.ended = true;
    if (this.socketClosed !== undefined) this.socket.off('close', this.socketClosed);
  }

  /**
   * Corks the socket, not the response: Node 22 and 24 (not 20, not 26)
   * send a corked chunked response's final `0\r\n\r\n` before its last chunk
   * when the response itself is corked, which cut SSE streams short.
   */
  cork(write: () => void): HttpResponse {
    this.socket.cork();
    try {
      write();
    } finally {
      this.socket.uncork();
    }
    return this;
  }

  onAborted(handler: () => void): HttpResponse {
    this.abortedHandler = handler;
    if (this.socketClosed === undefined && !this.ended) {
      this.socketClosed = () => {
        if (!this.ended) this.abortedHandler?.();
      };
      this.socket.once('close', this.socketClosed);
    }
    return this;
  }

  onWritable(handler: (offset: number) => boolean): HttpResponse {
    if (this.writable === undefined) this.response.on('drain', () => this.writable?.(0));
    this.writable = handler;
    return this;
  }

  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void {
    const request = this.response.req;
    request.on('data', (chunk: Buffer) => handler(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer, false));
    request.on('end', () => handler(EMPTY, true));
  }

  pause(): void {}

  resume(): void {}

  close(): HttpResponse {
    this.ended = true;
    this.socket.destroy();
    return this;
  }

  getRemoteAddress(): ArrayBuffer {
    return this.peer().bytes;
  }

  getRemoteAddressAsText(): ArrayBuffer {
    return this.peer().text;
  }

  private peer(): PeerAddress {
    return peerOf(this.socket);
  }
}

function asBuffer(bytes: ArrayBuffer | Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : bytes instanceof Uint8Array ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.from(bytes);
}
