// The deep scan's 65,535 ports as a 256×256 canvas, port p at row p/256,
// column p%256 (cell 0 is no port), filled chunk by chunk as the scan
// verifies them. As in the legend, open ports are large discs and filtered
// ones diamonds, so shape tells them apart, not colour alone; a port the
// regions saw differently gets a square ring. The canvas is focusable: the
// arrow keys (or the mouse) move a cursor and a line of text says "Port N:
// state". The results tables stay the accessible content.
import { DIFFERS_MARK } from '../region-words.js';
import { el, uniqueId } from './dom.js';
import type { CellState, PortMap } from './port-states.js';

const SIDE = 256;
const SCALE = 2;
const LAST_PORT = 65535;
const STATES: readonly CellState[] = ['pending', 'closed', 'open', 'filtered', 'unverified'];
const CODE: Readonly<Record<CellState, number>> = { pending: 0, closed: 1, open: 2, filtered: 3, unverified: 4 };
const WORDS: Readonly<Record<CellState, string>> = {
  pending: 'not scanned yet',
  closed: 'closed',
  open: 'open',
  filtered: 'filtered',
  unverified: 'not verified (the scan ended first)',
};
const KEY_STEPS: Readonly<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -SIDE, ArrowDown: SIDE, PageUp: -SIDE * 16, PageDown: SIDE * 16 };

/** A CSS colour as RGBA bytes, by painting it. */
function rgba(context: CanvasRenderingContext2D, color: string): [number, number, number, number] {
  context.clearRect(0, 0, 1, 1);
  context.fillStyle = color;
  context.fillRect(0, 0, 1, 1);
  const [r = 0, g = 0, b = 0, a = 0] = context.getImageData(0, 0, 1, 1).data;
  return [r, g, b, a];
}

export class DeepMap implements PortMap {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly readout: HTMLParagraphElement;
  private readonly states = new Uint8Array(SIDE * SIDE);
  private differing: ReadonlySet<number> = new Set();
  private chunks = 0;
  private cursor = 1;
  private cursorShown = false;
  private frame = 0;

  constructor(label: string) {
    const readoutId = uniqueId('map-readout');
    this.canvas = el('canvas', 'port-map', {
      width: String(SIDE * SCALE),
      height: String(SIDE * SCALE),
      tabindex: '0',
      role: 'img',
      'aria-label': label,
      'aria-describedby': readoutId,
      'data-chunks-drawn': '0',
    });
    this.readout = el('p', 'map-readout', { id: readoutId, 'aria-live': 'polite' }, 'Hover or focus the map, then use the arrow keys, to read a port.');
    this.element = el('figure', 'map', {}, this.canvas, this.readout);
    this.canvas.addEventListener('keydown', (event) => this.onKey(event));
    this.canvas.addEventListener('focus', () => this.showCursor(this.cursor));
    this.canvas.addEventListener('blur', () => this.hideCursor());
    this.canvas.addEventListener('mousemove', (event) => this.onPointer(event));
    this.canvas.addEventListener('mouseleave', () => {
      if (document.activeElement !== this.canvas) this.hideCursor();
    });
    // The colours come from the stylesheet's scheme: a map still on the page is drawn again when it changes.
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      if (this.canvas.isConnected) this.redraw();
    });
    this.redraw();
  }

  chunkDone(ports: readonly number[], open: ReadonlySet<number>): void {
    for (const port of ports) if (this.states[port] === CODE.pending) this.states[port] = open.has(port) ? CODE.open : CODE.closed;
    this.chunks += 1;
    this.canvas.dataset.chunksDrawn = String(this.chunks);
    this.redraw();
  }

  markOpen(open: ReadonlySet<number>): void {
    for (const port of open) this.states[port] = CODE.open;
    this.redraw();
  }

  finish(open: ReadonlySet<number>, filtered: ReadonlySet<number>, complete: boolean): void {
    for (let port = 1; port <= LAST_PORT; port++) {
      if (open.has(port)) this.states[port] = CODE.open;
      else if (filtered.has(port)) this.states[port] = CODE.filtered;
      else if (this.states[port] === CODE.pending) this.states[port] = complete ? CODE.closed : CODE.unverified;
    }
    this.canvas.dataset.finished = 'true';
    this.redraw();
  }

  markDiffering(ports: ReadonlySet<number>): void {
    this.differing = ports;
    this.canvas.dataset.differs = String(ports.size);
    this.redraw();
  }

  private stateOf(port: number): CellState {
    return STATES[this.states[port] ?? 0] ?? 'pending';
  }

  private onKey(event: KeyboardEvent): void {
    let next = this.cursor + (KEY_STEPS[event.key] ?? 0);
    if (event.key === 'Home') next = Math.max(1, this.cursor - (this.cursor % SIDE));
    else if (event.key === 'End') next = this.cursor - (this.cursor % SIDE) + SIDE - 1;
    else if (KEY_STEPS[event.key] === undefined) return;
    event.preventDefault();
    this.showCursor(Math.min(LAST_PORT, Math.max(1, next)));
  }

  private onPointer(event: MouseEvent): void {
    const box = this.canvas.getBoundingClientRect(); // the border box: the cells start inside the border
    const { clientLeft, clientTop, clientWidth, clientHeight } = this.canvas;
    const column = Math.floor(((event.clientX - box.left - clientLeft) / clientWidth) * SIDE);
    const row = Math.floor(((event.clientY - box.top - clientTop) / clientHeight) * SIDE);
    if (column < 0 || column >= SIDE || row < 0 || row >= SIDE) return;
    this.showCursor(Math.min(LAST_PORT, Math.max(1, row * SIDE + column)));
  }

  private showCursor(port: number): void {
    this.cursor = port;
    this.cursorShown = true;
    const differs = this.differing.has(port) ? ` (${DIFFERS_MARK.symbol} ${DIFFERS_MARK.label.toLowerCase()} from the other regions)` : '';
    this.readout.textContent = `Port ${port}: ${WORDS[this.stateOf(port)]}${differs}`;
    this.redraw();
  }

  private hideCursor(): void {
    this.cursorShown = false;
    this.redraw();
  }

  /** Draws on the next animation frame: many updates in one frame draw once. */
  private redraw(): void {
    if (this.frame !== 0) return;
    this.frame = window.requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    const context = this.canvas.getContext('2d', { willReadFrequently: true });
    if (context === null) return;
    const style = getComputedStyle(this.canvas);
    const color = (name: string) => style.getPropertyValue(`--map-${name}`).trim() || 'gray';
    const palette = STATES.map((state) => rgba(context, color(state)));
    const image = context.createImageData(SIDE, SIDE);
    for (let cell = 0; cell < SIDE * SIDE; cell++) {
      const [r, g, b, a] = palette[cell === 0 ? CODE.pending : (this.states[cell] ?? 0)] ?? [0, 0, 0, 0];
      image.data.set([r, g, b, a], cell * 4);
    }
    const base = document.createElement('canvas');
    base.width = SIDE;
    base.height = SIDE;
    base.getContext('2d')?.putImageData(image, 0, 0);
    context.imageSmoothingEnabled = false;
    context.clearRect(0, 0, this.canvas.width, this.canvas.height);
    context.drawImage(base, 0, 0, SIDE * SCALE, SIDE * SCALE);
    this.drawMarkers(context, color('open'), color('filtered'), color('marker-edge'));
    this.drawDiffering(context, color('differs'));
    if (this.cursorShown) {
      const [x, y] = this.center(this.cursor);
      context.strokeStyle = color('cursor');
      context.lineWidth = 2;
      context.strokeRect(x - 7, y - 7, 14, 14);
    }
  }

  private center(port: number): [number, number] {
    return [((port % SIDE) + 0.5) * SCALE, (Math.floor(port / SIDE) + 0.5) * SCALE];
  }

  /** A square ring around each port seen differently: a shape of its own, over whatever state the port has here. */
  private drawDiffering(context: CanvasRenderingContext2D, ring: string): void {
    context.strokeStyle = ring;
    context.lineWidth = 2;
    for (const port of this.differing) {
      const [x, y] = this.center(port);
      context.strokeRect(x - 11, y - 11, 22, 22);
    }
  }

  private drawMarkers(context: CanvasRenderingContext2D, open: string, filtered: string, edge: string): void {
    context.lineWidth = 1.5;
    for (let port = 1; port <= LAST_PORT; port++) {
      const state = this.states[port];
      if (state !== CODE.open && state !== CODE.filtered) continue;
      const [x, y] = this.center(port);
      context.beginPath();
      if (state === CODE.open) {
        context.arc(x, y, 8, 0, 2 * Math.PI);
        context.fillStyle = open;
        context.fill();
        context.strokeStyle = edge;
        context.stroke();
      } else {
        context.moveTo(x, y - 5);
        context.lineTo(x + 5, y);
        context.lineTo(x, y + 5);
        context.lineTo(x - 5, y);
        context.closePath();
        context.strokeStyle = filtered;
        context.stroke();
      }
    }
  }
}
