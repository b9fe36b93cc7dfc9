// A fixed list of ports (the fast scan's 32, the udp scan's 20) as a grid
// of cells, each saying its port (`53/udp` for UDP), service and state in
// text, with a mark whose shape (not only its colour) tells the state
// apart; a UDP port that never answered says "no answer", as UDP cannot
// tell a silent service from a firewall. A port the regions saw
// differently gets a symbol and a line saying so.
import type { PortFact } from '../page-data.js';
import { DIFFERS_MARK } from '../region-words.js';
import { udpPortName } from '../udp-words.js';
import { el } from './dom.js';
import type { CellState, PortMap } from './port-states.js';

const STATE_WORDS: Readonly<Record<CellState, string>> = {
  pending: 'not yet',
  open: 'open',
  closed: 'closed',
  filtered: 'filtered',
  unverified: 'not verified',
};

/** Each protocol's name of a port and words of its states. */
const PROTOCOLS = {
  tcp: { portName: String, stateWords: STATE_WORDS },
  udp: { portName: udpPortName, stateWords: { ...STATE_WORDS, filtered: 'no answer' } },
} as const;

interface Cell {
  item: HTMLLIElement;
  state: HTMLSpanElement;
  now: CellState;
}

export class PortGrid implements PortMap {
  readonly element: HTMLOListElement;
  private readonly cells = new Map<number, Cell>();
  private readonly stateWords: Readonly<Record<CellState, string>>;

  constructor(ports: readonly PortFact[], label: string, protocol: keyof typeof PROTOCOLS = 'tcp') {
    const { portName, stateWords } = PROTOCOLS[protocol];
    this.stateWords = stateWords;
    this.element = el('ol', 'port-grid', { 'aria-label': label });
    for (const { port, service } of ports) {
      const state = el('span', 'cell-state');
      const item = el(
        'li',
        'cell',
        { 'data-port': String(port) },
        el('span', 'mark', { 'aria-hidden': 'true' }),
        el('span', 'cell-port', {}, portName(port)),
        el('span', 'cell-service', {}, service ?? 'unknown'),
        state,
      );
      this.element.append(item);
      const cell: Cell = { item, state, now: 'pending' };
      this.cells.set(port, cell);
      this.set(cell, 'pending');
    }
  }

  chunkDone(ports: readonly number[], open: ReadonlySet<number>): void {
    for (const port of ports) {
      const cell = this.cells.get(port);
      if (cell !== undefined && cell.now === 'pending') this.set(cell, open.has(port) ? 'open' : 'closed');
    }
  }

  markOpen(open: ReadonlySet<number>): void {
    for (const port of open) {
      const cell = this.cells.get(port);
      if (cell !== undefined) this.set(cell, 'open');
    }
  }

  finish(open: ReadonlySet<number>, filtered: ReadonlySet<number>, complete: boolean): void {
    for (const [port, cell] of this.cells) {
      if (open.has(port)) this.set(cell, 'open');
      else if (filtered.has(port)) this.set(cell, 'filtered');
      else if (cell.now === 'pending') this.set(cell, complete ? 'closed' : 'unverified');
    }
  }

  markDiffering(ports: ReadonlySet<number>): void {
    for (const port of ports) {
      const cell = this.cells.get(port);
      if (cell === undefined) continue;
      cell.item.dataset.differs = 'true';
      cell.item.append(
        el('span', 'cell-differs differs', {}, el('span', 'differs-mark', { 'aria-hidden': 'true' }, DIFFERS_MARK.symbol), ` ${DIFFERS_MARK.label}`),
      );
    }
  }

  private set(cell: Cell, state: CellState): void {
    cell.now = state;
    cell.item.className = `cell cell-${state}`;
    cell.item.dataset.state = state;
    cell.state.textContent = this.stateWords[state];
  }
}
