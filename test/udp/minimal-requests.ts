// The smallest requests each server of support/udp-services-host.ts
// answers, written out by hand (not the scan's own probes, which these
// tests must not take on trust), and what a right answer to each looks like.
import { TFTP_FILE, type UdpServer } from '../../support/udp-services-host.js';

/** A request and the check of its answer; `connected: false` where the answer comes from another port (TFTP's). */
export interface MinimalRequest {
  bytes: Buffer;
  answers(reply: Buffer): boolean;
  connected: boolean;
}

const REQUEST_ID = 0x5eca;

/** DNS: a recursive `A <name>` query. */
export function dnsQuery(name: string): Buffer {
  const labels = name.split('.').flatMap((label) => [Buffer.from([label.length]), Buffer.from(label)]);
  const header = Buffer.from([REQUEST_ID >> 8, REQUEST_ID & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

/** The A record of a DNS answer with no error; null otherwise. */
export function dnsAddress(reply: Buffer): string | null {
  const isAnswer = reply.readUInt16BE(0) === REQUEST_ID && (reply[2]! & 0x80) !== 0 && (reply[3]! & 0x0f) === 0 && reply.readUInt16BE(6) === 1;
  return isAnswer ? [...reply.subarray(-4)].join('.') : null;
}

/** SNMPv2c GetRequest for sysDescr.0 with `community` (request id 0x12345678). */
export function snmpGetSysDescr(community: string): Buffer {
  const varbinds = Buffer.from('300e300c06082b060102010101000500', 'hex');
  const pdu = Buffer.concat([Buffer.from('020412345678020100020100', 'hex'), varbinds]);
  const body = Buffer.concat([Buffer.from([0x02, 0x01, 0x01, 0x04, community.length]), Buffer.from(community), Buffer.from([0xa0, pdu.length]), pdu]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

/** An SNMP GetResponse carrying the fixture's sysDescr. */
export const isSnmpSysDescr = (reply: Buffer): boolean => reply[0] === 0x30 && reply.includes(0xa2) && reply.includes('selfscan udp fixture');

/** TFTP: read request for `file`, octet mode. */
export const tftpRead = (file: string): Buffer => Buffer.concat([Buffer.from([0, 1]), Buffer.from(`${file}\0octet\0`)]);

/** TFTP: the acknowledgement of data block `block`, which ends a one-block transfer. */
export const tftpAck = (block: number): Buffer => Buffer.from([0, 4, block >> 8, block & 0xff]);

/** Per service, a request it answers and the check of the answer. */
export const MINIMAL_REQUESTS: Readonly<Record<UdpServer, MinimalRequest>> = {
  dns: { bytes: dnsQuery('example.com'), answers: (reply) => dnsAddress(reply) === '93.184.215.14', connected: true },
  // NTPv4 client (mode 3), all else zero; chronyd's `local stratum 8` answers as stratum 8, mode 4 (server).
  ntp: {
    bytes: Buffer.concat([Buffer.from([0x23]), Buffer.alloc(47)]),
    answers: (reply) => reply.length === 48 && (reply[0]! & 7) === 4 && reply[1] === 8,
    connected: true,
  },
  snmp: { bytes: snmpGetSysDescr('public'), answers: isSnmpSysDescr, connected: true },
  'snmp-private': { bytes: snmpGetSysDescr('s3cret'), answers: isSnmpSysDescr, connected: true },
  // The 8-byte UDP frame header (request id 1, sequence 0 of 1), then a text command.
  memcached: {
    bytes: Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 1, 0, 0]), Buffer.from('version\r\n')]),
    answers: (reply) => reply.subarray(8).toString().startsWith('VERSION '),
    connected: true,
  },
  chargen: { bytes: Buffer.from([0x0a]), answers: (reply) => /^[ -~]+\r\n$/.test(reply.toString('latin1')), connected: true },
  // DATA block 1 with the whole file, sent from the transfer's own port.
  tftp: {
    bytes: tftpRead(TFTP_FILE.name),
    answers: (reply) => reply.readUInt16BE(0) === 3 && reply.readUInt16BE(2) === 1 && reply.subarray(4).toString() === TFTP_FILE.contents,
    connected: false,
  },
  // ONC RPC call (xid, CALL, RPC 2) of rpcbind's NULL procedure (program 100000, version 2, procedure 0), no credentials; accepted and successful.
  portmap: {
    bytes: Buffer.from('5eca5eca 00000000 00000002 000186a0 00000002 00000000 00000000 00000000 00000000 00000000'.replaceAll(' ', ''), 'hex'),
    answers: (reply) =>
      reply.length >= 24 && reply.readUInt32BE(0) === 0x5eca5eca && reply.readUInt32BE(4) === 1 && reply.readUInt32BE(8) === 0 && reply.readUInt32BE(20) === 0,
    connected: true,
  },
  // Confirmable GET /.well-known/core (message id 0x5eca); the answer is a piggybacked ACK, 2.05 Content.
  coap: {
    bytes: Buffer.from('40015eca bb2e77656c6c2d6b6e6f776e 04636f7265'.replaceAll(' ', ''), 'hex'),
    answers: (reply) => reply[0] === 0x60 && reply[1] === 0x45 && reply.readUInt16BE(2) === REQUEST_ID && reply.includes('</'),
    connected: true,
  },
};
