// The same scans from a shell or an agent, built from the origin the page
// (or a pane) is served at: curl for v1 and v2, the MCP client config and,
// after a result, the `selfscan check` command that enforces what was found.
import type { ScanType } from '../../api/scan-type.js';
import type { SeverityLevel } from '../../api/severity-levels.js';
import { byId, el } from './dom.js';

export interface Snippet {
  title: string;
  code: string;
}

/** The snippets every visitor can use, for the service at `origin`. */
export function baseSnippets(origin: string): Snippet[] {
  return [
    { title: 'Fast scan, polling (v1)', code: `curl -X POST ${origin}/v1/fast\ncurl ${origin}/v1/fast` },
    { title: 'Deep scan, streamed (v2)', code: `curl -N ${origin}/v2/deep` },
    { title: 'UDP scan, streamed (v2)', code: `curl -N ${origin}/v2/udp` },
    { title: 'MCP client config', code: JSON.stringify({ mcpServers: { selfscan: { type: 'http', url: `${origin}/mcp` } } }, null, 2) },
  ];
}

/**
 * The command that fails when the open ports differ from `open` (a check
 * for CI or cron) and, when the server rated them (`severity`, the
 * highest), when one becomes riskier than that.
 */
export function checkSnippet(origin: string, scanType: ScanType, open: readonly number[], family: string, severity?: SeverityLevel | null): Snippet {
  const args = ['npx selfscan-check', '--server', origin];
  if (scanType !== 'fast') args.push(`--${scanType}`);
  if (open.length > 0) args.push('--expect-open', [...open].sort((a, b) => a - b).join(','));
  args.push('--only-open');
  const rated = severity !== undefined && severity !== null;
  if (rated) args.push('--max-severity', severity);
  return { title: `Keep it this way (${family}): fail when another port opens${rated ? ' or one gets riskier' : ''}`, code: args.join(' ') };
}

function snippetElement({ title, code }: Snippet): HTMLElement {
  return el('div', 'snippet', {}, el('h3', '', {}, title), el('pre', '', { tabindex: '0' }, el('code', '', {}, code)));
}

/** Fills #snippet-list: the base snippets, then each pane's check command once it has one. */
export class SnippetList {
  private readonly list = byId('snippet-list');
  private readonly checks = new Map<string, Snippet>();

  constructor(private readonly base: Snippet[]) {
    this.render();
  }

  setCheck(family: string, snippet: Snippet): void {
    this.checks.set(family, snippet);
    this.render();
  }

  private render(): void {
    this.list.replaceChildren(...[...this.base, ...this.checks.values()].map(snippetElement));
  }
}
