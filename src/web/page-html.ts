// The page at `/`: who would be scanned (rendered here, so it shows without
// script), the three scan buttons (a plain form that works without
// JavaScript; the script takes it over) with, on a cluster of several
// regions, a "from every region" choice, and the places the script fills:
// live status, port maps, results, changes, snippets.
import { type Html, html, jsonData } from './html.js';
import { type LimitFacts, PAGE_DATA_ID, type PageData } from './page-data.js';
import { DIFFERS_MARK, regionsText } from './region-words.js';
import type { WebAssets } from './web-assets.js';

const per = (windowSeconds: number): string =>
  windowSeconds % 3600 === 0 ? `${windowSeconds / 3600} h` : windowSeconds % 60 === 0 ? `${windowSeconds / 60} min` : `${windowSeconds} s`;

/** A limit in words: `requests: 30 per 1 min`, or `requests: no limit` when the operator turned it off (max 0). */
const limitText = ({ max, windowSeconds }: LimitFacts, what: string): string => `${what}: ${max === 0 ? 'no limit' : `${max} per ${per(windowSeconds)}`}`;

/** The head and the frame every HTML page of the service shares. */
export function pageFrame(assets: WebAssets, title: string, body: Html, head: Html = html``): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<link rel="icon" href="${assets.path('icon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.path('style.css')}">
${head}</head>
<body>
<header class="site"><a class="brand" href="/">selfscan</a><span class="tagline">which of your TCP ports can the world reach?</span></header>
<main id="main">
${body}
</main>
<footer class="site"><a href="/openapi.json">OpenAPI</a> · MCP endpoint <code>/mcp</code> · results kept 24 h</footer>
</body>
</html>
`;
}

/** The choice of a scan from every region (the form field the script and the form route read), when there are several. */
function regionsChoice(regions: readonly string[]): Html {
  if (regions.length < 2) return html``;
  return html`<div class="choice regions-choice"><label class="check"><input type="checkbox" name="regions" value="all" id="regions-all" aria-describedby="regions-cost"> Scan from every region</label>
<p id="regions-cost" class="cost">from ${regionsText(regions)}, one map each · each region counts as one scan</p></div>
`;
}

/** The legend's entry for ports the regions saw differently, when the page offers several. */
function differsTerm(regions: readonly string[]): Html {
  if (regions.length < 2) return html``;
  return html`<dt><span class="differs-mark" aria-hidden="true">${DIFFERS_MARK.symbol}</span> seen differently</dt><dd>the regions disagree about the port: open from one, filtered or closed from another (on a deep map, a square ring around it).</dd>
`;
}

/** The page for a caller; `data` is what the script reads. */
export function renderPage(assets: WebAssets, data: PageData): Html {
  const { limits } = data;
  const head = html`<script type="module" src="${assets.path('app.js')}"></script>
<script type="application/json" id="${PAGE_DATA_ID}">${jsonData(data)}</script>
`;
  const body = html`<section aria-labelledby="who-heading" class="who">
<h1 id="who-heading">Scan <span id="caller-ip" class="ip">${data.ip}</span></h1>
<p>Your address as this server sees it: <strong>${data.ip}</strong> (${data.family})<span id="caller-ptr"></span>.</p>
<p class="honest">selfscan scans only the address a request comes from — this one, never another — over TCP, and limits how often (${limitText(limits.edge, 'requests')}; ${limitText(limits.deepPerIp, 'deep scans per address')}).
Only the UDP scan uses UDP: it sends each of its ${data.udpPorts.length} services one harmless request in its own protocol
(${limitText(limits.udpPerIp, 'UDP scans per address')}).</p>
</section>
<section aria-labelledby="start-heading" class="start">
<h2 id="start-heading">Start a scan</h2>
<form method="post" action="/scan/fast" id="scan-form" class="scan-buttons">
<div class="choice"><button type="submit" name="type" value="fast" id="fast-button" aria-describedby="fast-cost">Fast scan</button>
<p id="fast-cost" class="cost">${data.fastPorts.length} common ports · a few seconds</p></div>
<div class="choice"><button type="submit" name="type" value="deep" id="deep-button" formaction="/scan/deep" aria-describedby="deep-cost">Deep scan</button>
<p id="deep-cost" class="cost">all 65,535 ports · a minute or more · ${limitText(limits.deepPerIp, 'deep scans per address')}</p></div>
<div class="choice"><button type="submit" name="type" value="udp" id="udp-button" formaction="/scan/udp" aria-describedby="udp-cost">UDP scan</button>
<p id="udp-cost" class="cost">${data.udpPorts.length} UDP services that amplify attacks or leak (DNS, NTP, memcached…) · under a minute ·
${limitText(limits.udpPerIp, 'UDP scans per address')}</p></div>
${regionsChoice(data.regions)}</form>
<p id="budget" class="budget"></p>
<p id="notice" class="notice" role="alert" hidden></p>
<p id="retry" class="retry" hidden></p>
</section>
<div id="panes" class="panes"></div>
<section aria-labelledby="terms-heading" class="terms">
<h2 id="terms-heading">What the states mean</h2>
<dl>
<dt><span class="mark mark-open" aria-hidden="true"></span>open</dt><dd>something accepted a connection: the world can reach it.</dd>
<dt><span class="mark mark-closed" aria-hidden="true"></span>closed</dt><dd>the host answered that nothing listens there.</dd>
<dt><span class="mark mark-filtered" aria-hidden="true"></span>filtered</dt><dd>no answer while the host answered on other ports: a firewall drops it.</dd>
<dt><span class="mark mark-filtered" aria-hidden="true"></span>no answer (UDP)</dt>
<dd>a UDP port that neither answered nor was refused: a service that ignored the request, or a firewall. UDP cannot tell them apart.</dd>
${differsTerm(data.regions)}</dl>
</section>
<section aria-labelledby="snippets-heading" class="snippets" id="snippets">
<h2 id="snippets-heading">Do it from a shell or an agent</h2>
<div id="snippet-list"></div>
</section>`;
  return pageFrame(assets, `selfscan — scan ${data.ip}`, body, head);
}
