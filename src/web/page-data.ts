// What the server tells the page's script about the service and the caller,
// embedded in the HTML as JSON: one shape for the server that writes it and
// the browser code that reads it (which imports only these types).
import type { ScanType } from '../api/scan-type.js';

/** A rate limit as the page explains it. */
export interface LimitFacts {
  max: number;
  windowSeconds: number;
}

/** A port of a scan type's fixed list, with the service it is for. */
export interface PortFact {
  port: number;
  service: string | null;
}

/** A scan pane: a family the page scans through its own origin. */
export interface PaneFacts {
  family: 'IPv4' | 'IPv6';
  /** The origin the pane's requests go to (CORS); '' for the page's own. */
  origin: string;
}

export interface PageData {
  /** The caller's address as the server sees it: what a scan would scan. */
  ip: string;
  family: 'IPv4' | 'IPv6';
  /** The fast scan's ports, in order, with their service names. */
  fastPorts: PortFact[];
  /** The udp scan's UDP ports, in order, with the service each is probed for. */
  udpPorts: PortFact[];
  /** Ports per chunk of each scan type: chunk i covers the i-th run of that many of its ports. */
  chunkSize: Record<ScanType, number>;
  /** One pane on the page's own origin, or one per family when the operator configured both. */
  panes: PaneFacts[];
  /** The regions this cluster scans from (each with a live scanner node), sorted, when there are several: the page offers a scan from every region. Empty otherwise. */
  regions: string[];
  limits: { edge: LimitFacts; deepPerIp: LimitFacts; fastPerAsn: LimitFacts; deepPerAsn: LimitFacts; udpPerIp: LimitFacts };
}

/** The id of the element that holds the JSON. */
export const PAGE_DATA_ID = 'page-data';
