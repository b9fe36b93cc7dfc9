// The udp probes of TFTP, CLDAP, IPMI, OpenVPN, the SQL Server Browser,
// WS-Discovery, SIP, CoAP, Ubiquiti discovery and IKE: each request's bytes,
// and each reader on replies from real servers (tftpd-hpa, libcoap's
// coap-server, OpenIPMI's ipmi_sim, OpenVPN 2.6, captured as hex) or built
// from the protocol's spec, on every prefix of them, on others' replies and
// on random bytes: recognised, or null, and never a throw.
import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { berApplication, berInteger, berOctetString, berSequence, berTlv } from '../../src/udp/probes/ber.js';
import { cldapProbe } from '../../src/udp/probes/cldap-probe.js';
import { coapProbe } from '../../src/udp/probes/coap-probe.js';
import { ikeProbe } from '../../src/udp/probes/ike-probe.js';
import { ipmiProbe } from '../../src/udp/probes/ipmi-probe.js';
import { mssqlProbe } from '../../src/udp/probes/mssql-probe.js';
import { openvpnProbe } from '../../src/udp/probes/openvpn-probe.js';
import { sipProbe } from '../../src/udp/probes/sip-probe.js';
import { tftpProbe } from '../../src/udp/probes/tftp-probe.js';
import { ubiquitiProbe } from '../../src/udp/probes/ubiquiti-probe.js';
import type { UdpProbe } from '../../src/udp/probes/udp-probe.js';
import { wsDiscoveryProbe } from '../../src/udp/probes/ws-discovery-probe.js';

const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
const requestHex = (probe: UdpProbe): string => Buffer.from(probe.requests[0]!.bytes).toString('hex');

/** Replies from real servers to our requests, as received. */
const REAL = {
  /** tftpd-hpa 5.2 (`in.tftpd --secure`), the file missing. */
  tftpError: hex('0005 0001 46696c65206e6f7420666f756e64 00'),
  /** tftpd-hpa 5.2, a file by that name holding `hello\n`. */
  tftpData: hex('0003 0001 68656c6c6f0a'),
  /** libcoap 4.3 `coap-server-notls`: a piggybacked 2.05 with its four resources. */
  coap: hex(
    '64455c4a73656c66c128ff3c2f3e3b7469746c653d2247656e6572616c20496e666f223b63743d302c3c2f74696d653e3b69663d22636c6f636b223b72743d227469636b73223b74' +
      '69746c653d22496e7465726e616c20436c6f636b223b63743d303b6f62732c3c2f6173796e633e3b63743d302c3c2f6578616d706c655f646174613e3b7469746c653d224578616d' +
      '706c652044617461223b63743d303b6f6273',
  ),
  /** OpenIPMI 2.0 `ipmi_sim` (lanserv), a user with an empty name configured. */
  ipmi: hex('0600ff07 00 00000000 00000000 10 811c63 20 00 38 00 01 97 06 03 000000 00 07'),
  /** OpenVPN 2.6.14, a TLS server without tls-auth: its reset acknowledging our packet 0 of our session. */
  openvpn: hex('40 f1105f7c7343b6c9 01 00000000 5e1f5ca19e0b37d4 00000000'),
};

/** A domain controller's rootDSE over CLDAP, built as Active Directory sends it: the entry, then the done, each with our message id. */
function cldapReply(messageId: number): Uint8Array {
  const attribute = (type: string, ...values: string[]) => berSequence(berOctetString(type), berTlv(0x31, ...values.map((value) => berOctetString(value))));
  const entry = berApplication(4, [
    berOctetString(''),
    berSequence(
      attribute('currentTime', '20240101120000.0Z'),
      attribute('defaultNamingContext', 'DC=corp,DC=example'),
      attribute('dnsHostName', 'dc01.corp.example'),
      attribute('supportedLDAPVersion', '3', '2'),
    ),
  ]);
  const done = berApplication(5, [berInteger(0, 0x0a), berOctetString(''), berOctetString('')]);
  return concat(berSequence(berInteger(messageId), entry), berSequence(berInteger(messageId), done));
}

const MSSQL_REPLY = (() => {
  const text =
    'ServerName;SQL01;InstanceName;MSSQLSERVER;IsClustered;No;Version;15.0.2000.5;tcp;1433;;' +
    'ServerName;SQL01;InstanceName;SQLEXPRESS;IsClustered;No;Version;16.0.1000.6;tcp;49712;np;\\\\SQL01\\pipe\\MSSQL$SQLEXPRESS\\sql\\query;;';
  return concat(Uint8Array.of(0x05, text.length & 0xff, text.length >> 8), ascii(text));
})();

/** A UniFi access point's answer: MAC+IP, MAC, firmware, uptime, host name, short and full model. */
const UBIQUITI_REPLY = (() => {
  const tlv = (type: number, value: Uint8Array) => concat(Uint8Array.of(type, value.length >> 8, value.length & 0xff), value);
  const body = concat(
    tlv(0x02, hex('788a20112233 c0a80114')),
    tlv(0x01, hex('788a20112233')),
    tlv(0x03, ascii('BZ.qca956x.v6.5.28.14491.230213.1532')),
    tlv(0x0a, hex('0001e240')),
    tlv(0x0b, ascii('office-ap')),
    tlv(0x0c, ascii('U7PG2')),
    tlv(0x14, ascii('UAP-AC-Pro-Gen2')),
  );
  return concat(Uint8Array.of(0x01, 0x00, body.length >> 8, body.length & 0xff), body);
})();

const WS_MESSAGE_ID = 'urn:uuid:6a0c3e4e-7b1d-4f0a-9c5e-2d8f1b3a5c7e';
const wsReply = (relatesTo: string, body: string): Uint8Array =>
  ascii(
    '<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://www.w3.org/2003/05/soap-envelope" ' +
      'xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:wsdd="http://schemas.xmlsoap.org/ws/2005/04/discovery" ' +
      'xmlns:dn="http://www.onvif.org/ver10/network/wsdl"><SOAP-ENV:Header>' +
      '<wsa:MessageID>uuid:1f2e3d4c-0000-1000-8000-a0b1c2d3e4f5</wsa:MessageID>' +
      `<wsa:RelatesTo>${relatesTo}</wsa:RelatesTo><wsa:To>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</wsa:To>` +
      '<wsa:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches</wsa:Action></SOAP-ENV:Header>' +
      `<SOAP-ENV:Body>${body}</SOAP-ENV:Body></SOAP-ENV:Envelope>`,
  );
const WS_PROBE_MATCHES = wsReply(
  WS_MESSAGE_ID,
  '<wsdd:ProbeMatches><wsdd:ProbeMatch><wsa:EndpointReference><wsa:Address>urn:uuid:1f2e3d4c-0000-1000-8000-a0b1c2d3e4f5</wsa:Address>' +
    '</wsa:EndpointReference><wsdd:Types>dn:NetworkVideoTransmitter</wsdd:Types>' +
    '<wsdd:Scopes>onvif://www.onvif.org/type/video_encoder onvif://www.onvif.org/hardware/IPC</wsdd:Scopes>' +
    '<wsdd:XAddrs>http://192.168.1.64/onvif/device_service</wsdd:XAddrs><wsdd:MetadataVersion>10</wsdd:MetadataVersion>' +
    '</wsdd:ProbeMatch></wsdd:ProbeMatches>',
);

const SIP_CALL_ID = 'selfscan-4f1c2b9e@nm';
const sipReply = (statusLine: string, headers: string[]): Uint8Array =>
  ascii(
    [
      statusLine,
      'Via: SIP/2.0/UDP nm;branch=z9hG4bK-selfscan-4f1c2b9e;received=198.51.100.7;rport=40000',
      'From: <sip:selfscan@nm>;tag=selfscan-7d3a',
      'To: <sip:nm@nm>;tag=as0c4f2a11',
      ...headers,
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n'),
  );
const SIP_OK = sipReply('SIP/2.0 200 OK', [
  `Call-ID: ${SIP_CALL_ID}`,
  'CSeq: 1 OPTIONS',
  'Server: Asterisk PBX 18.10.0',
  'Allow: INVITE, ACK, CANCEL, OPTIONS, BYE, REFER, SUBSCRIBE, NOTIFY, INFO, PUBLISH, MESSAGE',
  'Accept: application/sdp',
]);

const IKE_COOKIE = '53454c467363616e';
/** An ISAKMP header from our cookie, then `payloads` (their chain starting with `next`). */
function ikeMessage(responderCookie: string, next: number, versionByte: number, exchange: number, payloads: string): Uint8Array {
  const body = hex(payloads);
  const length = (28 + body.length).toString(16).padStart(8, '0');
  const byte = (value: number) => value.toString(16).padStart(2, '0');
  const header = `${IKE_COOKIE}${responderCookie}${byte(next)}${byte(versionByte)}${byte(exchange)}00 00000000 ${length}`;
  return concat(hex(header), body);
}
/** Main Mode reply: the SA chosen (one proposal, one transform: AES-128, SHA-1, PSK, MODP 2048), then a vendor ID. */
const IKE_SA_REPLY = ikeMessage(
  'c0ffee0123456789',
  1,
  0x10,
  2,
  '0d000038 00000001 00000001 0000002c 01010001 00000024 01010000 8001 0007 800e 0080 8002 0002 8003 0001 8004 000e 800b 0001 800c 7080' +
    '00000014 4a131c81070358455c5728f20e95452f',
);
/** Informational reply: a notify NO-PROPOSAL-CHOSEN (DOI IPsec, protocol ISAKMP, no SPI). */
const IKE_NOTIFY_REPLY = ikeMessage('0000000000000000', 11, 0x10, 5, '0000000c 00000001 01 00 000e');
/** An IKEv2-only responder's INFORMATIONAL with INVALID_MAJOR_VERSION. */
const IKE_V2_NOTIFY_REPLY = ikeMessage('0000000000000000', 41, 0x20, 37, '00000008 00 00 0005');

describe('requests', () => {
  it('sends each protocol its request', () => {
    expect(requestHex(tftpProbe)).toBe(`0001${Buffer.from('selfscan-probe-nonexistent\0octet\0').toString('hex')}`);
    expect(requestHex(cldapProbe)).toBe('302602022f41632004000a01000a0100020100020100010100870b6f626a656374436c6173733000');
    expect(requestHex(ipmiProbe)).toBe('0600ff07000000000000000000092018c88100388e04b5');
    expect(requestHex(openvpnProbe)).toBe('385e1f5ca19e0b37d40000000000');
    expect(requestHex(mssqlProbe)).toBe('03');
    expect(requestHex(ubiquitiProbe)).toBe('01000000');
    expect(requestHex(coapProbe)).toBe(`44015c4a73656c66bb${Buffer.from('.well-known').toString('hex')}04${Buffer.from('core').toString('hex')}`);
  });

  it('sends a SIP OPTIONS with every mandatory header, fixed branch, tag and Call-ID', () => {
    const text = Buffer.from(sipProbe.requests[0]!.bytes).toString('latin1');
    expect(text.startsWith('OPTIONS sip:nm SIP/2.0\r\n')).toBe(true);
    expect(text.endsWith('Content-Length: 0\r\n\r\n')).toBe(true);
    for (const header of ['Via: SIP/2.0/UDP nm;branch=z9hG4bK', 'From: ', 'To: ', `Call-ID: ${SIP_CALL_ID}`, 'CSeq: 1 OPTIONS', 'Max-Forwards: 70']) {
      expect(text).toContain(`\r\n${header}`);
    }
  });

  it('sends a WS-Discovery 2005/04 Probe with the fixed MessageID', () => {
    const text = Buffer.from(wsDiscoveryProbe.requests[0]!.bytes).toString('utf8');
    expect(text).toContain('xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery"');
    expect(text).toContain(`<a:MessageID>${WS_MESSAGE_ID}</a:MessageID>`);
    expect(text).toContain('<d:Probe/>');
  });

  it('sends an IKEv1 Main Mode header from the fixed cookie, its length the datagram', () => {
    const bytes = ikeProbe.requests[0]!.bytes;
    expect(Buffer.from(bytes.subarray(0, 28)).toString('hex')).toBe(
      `${IKE_COOKIE}0000000000000000011002000000000000${bytes.length.toString(16).padStart(6, '0')}`,
    );
    // SA payload: DOI IPsec, identity only; one ISAKMP proposal of four transforms.
    expect(Buffer.from(bytes.subarray(28, 48)).toString('hex')).toBe(`0000009c000000010000000100000090010100${'04'}`);
  });
});

describe('readings', () => {
  it('reads TFTP errors and data blocks of tftpd-hpa', () => {
    expect(tftpProbe.read(0, REAL.tftpError)).toEqual({
      evidence: 'answered a read request for a missing file with error 1 (File not found)',
      details: { opcode: 'ERROR', error_code: 1, message: 'File not found' },
    });
    expect(tftpProbe.read(0, REAL.tftpData)?.details).toEqual({ opcode: 'DATA', error_code: null, message: null });
    expect(tftpProbe.read(0, hex('0005 0063 00'))).toBeNull();
    expect(tftpProbe.read(0, hex('0003 0002 41'))).toBeNull();
  });

  it("reads a domain controller's rootDSE", () => {
    expect(cldapProbe.read(0, cldapReply(0x2f41))?.details).toEqual({
      entries: 1,
      attributes: 'currentTime,defaultNamingContext,dnsHostName,supportedLDAPVersion',
      dns_host_name: 'dc01.corp.example',
    });
    expect(cldapProbe.read(0, cldapReply(7))).toBeNull();
    // Cut inside the done: null; cut after the entry, it is a whole answer of one message still.
    const reply = cldapReply(0x2f41);
    expect(cldapProbe.read(0, reply.subarray(0, reply.length - 1))).toBeNull();
  });

  it("reads ipmi_sim's authentication capabilities", () => {
    expect(ipmiProbe.read(0, REAL.ipmi)?.details).toEqual({ ipmi_version: '2.0', auth_types: 'none,MD2,MD5,password', anonymous_login: true });
    // A v1.5-only BMC offering MD5 alone, neither null names nor anonymous login: header sum 0x63, body sum not checked.
    expect(ipmiProbe.read(0, hex('0600ff07 00 00000000 00000000 10 811c63 20 00 38 00 01 04 04 00 000000 00 00'))?.details).toEqual({
      ipmi_version: '1.5',
      auth_types: 'MD5',
      anonymous_login: false,
    });
    expect(ipmiProbe.read(0, hex('0600ff07 00 00000000 00000000 08 811c63 20 00 38 c1 00'))?.details).toEqual({
      ipmi_version: null,
      auth_types: null,
      anonymous_login: null,
    });
    expect(ipmiProbe.read(0, hex('0600ff07 00 00000000 00000000 10 811c64 20 00 38 00 01 97 06 03 000000 00 07'))).toBeNull();
  });

  it("reads OpenVPN's server reset, only when it acknowledges our session", () => {
    expect(openvpnProbe.read(0, REAL.openvpn)?.details).toEqual({ reset: true });
    expect(openvpnProbe.read(0, hex('40 f1105f7c7343b6c9 01 00000000 5e1f5ca19e0b37d5 00000000'))).toBeNull();
    expect(openvpnProbe.read(0, hex('40 f1105f7c7343b6c9 00 00000000'))).toBeNull();
    expect(openvpnProbe.read(0, hex('28 f1105f7c7343b6c9 01 00000000 5e1f5ca19e0b37d4 00000000'))).toBeNull();
  });

  it("reads the SQL Server Browser's instances", () => {
    expect(mssqlProbe.read(0, MSSQL_REPLY)).toEqual({
      evidence: 'listed 2 SQL Server instances of SQL01',
      details: { instances: 2, server_name: 'SQL01', version: '15.0.2000.5' },
    });
  });

  it("reads WS-Discovery's ProbeMatches and Faults that relate to our Probe", () => {
    expect(wsDiscoveryProbe.read(0, WS_PROBE_MATCHES)?.details).toEqual({
      types: 'dn:NetworkVideoTransmitter',
      xaddrs: 'http://192.168.1.64/onvif/device_service',
    });
    const fault = wsReply(WS_MESSAGE_ID, '<SOAP-ENV:Fault><SOAP-ENV:Code><SOAP-ENV:Value>SOAP-ENV:Sender</SOAP-ENV:Value></SOAP-ENV:Code></SOAP-ENV:Fault>');
    expect(wsDiscoveryProbe.read(0, fault)?.details).toEqual({ types: null, xaddrs: null });
    expect(wsDiscoveryProbe.read(0, wsReply('urn:uuid:00000000-0000-0000-0000-000000000000', '<wsdd:ProbeMatches/>'))).toBeNull();
  });

  it('reads SIP answers with our Call-ID: status and software', () => {
    expect(sipProbe.read(0, SIP_OK)).toEqual({
      evidence: 'answered OPTIONS with 200 OK (Asterisk PBX 18.10.0)',
      details: { status: 200, server: 'Asterisk PBX 18.10.0' },
    });
    const compact = sipReply('SIP/2.0 401 Unauthorized', [`i: ${SIP_CALL_ID}`, 'CSeq: 1 OPTIONS', 'User-Agent: FPBX-16.0.33(18.13.0)']);
    expect(sipProbe.read(0, compact)?.details).toEqual({ status: 401, server: 'FPBX-16.0.33(18.13.0)' });
    expect(sipProbe.read(0, sipReply('SIP/2.0 200 OK', ['Call-ID: someone-else@nm']))).toBeNull();
    expect(sipProbe.read(0, sipProbe.requests[0]!.bytes)).toBeNull();
  });

  it("reads libcoap's /.well-known/core, a reset, and not an empty ACK or others' messages", () => {
    expect(coapProbe.read(0, REAL.coap)).toEqual({
      evidence: 'answered GET /.well-known/core with 2.05, listing 4 resources',
      details: { code: '2.05', resources: 4, paths: '/ /time /async /example_data' },
    });
    expect(coapProbe.read(0, hex('70005c4a'))?.details).toEqual({ code: '0.00', resources: null, paths: null });
    expect(coapProbe.read(0, hex('60005c4a'))).toBeNull();
    // A separate response (CON, another message id) carrying our token.
    expect(coapProbe.read(0, hex('4484123473656c66'))?.details).toEqual({ code: '4.04', resources: 0, paths: null });
    expect(coapProbe.read(0, hex('6445123473656c66ff3c2f613e'))).toBeNull();
    expect(coapProbe.read(0, hex('64455c4a73656c67ff3c2f613e'))).toBeNull();
  });

  it("reads a UniFi device's discovery TLVs", () => {
    expect(ubiquitiProbe.read(0, UBIQUITI_REPLY)).toEqual({
      evidence: 'answered discovery with 7 fields: UAP-AC-Pro-Gen2, firmware BZ.qca956x.v6.5.28.14491.230213.1532, named office-ap',
      details: { model: 'UAP-AC-Pro-Gen2', firmware: 'BZ.qca956x.v6.5.28.14491.230213.1532', hostname: 'office-ap' },
    });
  });

  it('reads IKE answers to our cookie: an SA, a notify, an IKEv2 notify', () => {
    expect(ikeProbe.read(0, IKE_SA_REPLY)).toEqual({
      evidence: 'answered our IKEv1 Main Mode proposal in IKEv1 with its SA',
      details: { version: '1', responder_cookie_set: true, notify: null },
    });
    expect(ikeProbe.read(0, IKE_NOTIFY_REPLY)?.details).toEqual({ version: '1', responder_cookie_set: false, notify: 'NO-PROPOSAL-CHOSEN' });
    expect(ikeProbe.read(0, IKE_V2_NOTIFY_REPLY)?.details).toEqual({ version: '2', responder_cookie_set: false, notify: 'INVALID_MAJOR_VERSION' });
    const otherCookie = IKE_SA_REPLY.slice();
    otherCookie[0] = otherCookie[0]! ^ 1;
    expect(ikeProbe.read(0, otherCookie)).toBeNull();
  });
});

/** Each probe's valid replies, and whether every shorter prefix of them must be null (the framed ones: one length or a chain of lengths to the end). */
const VALID_REPLIES: ReadonlyArray<{ probe: UdpProbe; replies: Uint8Array[]; prefixesNull: boolean }> = [
  { probe: tftpProbe, replies: [REAL.tftpError, REAL.tftpData], prefixesNull: false },
  { probe: cldapProbe, replies: [cldapReply(0x2f41)], prefixesNull: false },
  { probe: ipmiProbe, replies: [REAL.ipmi], prefixesNull: true },
  { probe: openvpnProbe, replies: [REAL.openvpn], prefixesNull: true },
  { probe: mssqlProbe, replies: [MSSQL_REPLY], prefixesNull: true },
  { probe: wsDiscoveryProbe, replies: [WS_PROBE_MATCHES], prefixesNull: false },
  { probe: sipProbe, replies: [SIP_OK], prefixesNull: false },
  { probe: coapProbe, replies: [REAL.coap], prefixesNull: false },
  { probe: ubiquitiProbe, replies: [UBIQUITI_REPLY], prefixesNull: true },
  { probe: ikeProbe, replies: [IKE_SA_REPLY, IKE_NOTIFY_REPLY, IKE_V2_NOTIFY_REPLY], prefixesNull: true },
];

describe('hostile bytes', () => {
  it('reads every prefix of a valid reply without throwing; framed replies cut short are null', () => {
    for (const { probe, replies, prefixesNull } of VALID_REPLIES) {
      for (const reply of replies) {
        for (let length = 0; length < reply.length; length++) {
          const prefix = reply.subarray(0, length);
          expect(() => probe.read(0, prefix), `${probe.service} prefix ${length}`).not.toThrow();
          if (prefixesNull || length < 4) expect(probe.read(0, prefix), `${probe.service} prefix ${length}`).toBeNull();
        }
      }
    }
  });

  it("reads random bytes, its own request and the other probes' replies as null", () => {
    for (const { probe } of VALID_REPLIES) {
      for (let round = 0; round < 500; round++) expect(probe.read(0, new Uint8Array(randomBytes(round % 200))), probe.service).toBeNull();
      expect(probe.read(0, probe.requests[0]!.bytes), `${probe.service} echo`).toBeNull();
      for (const other of VALID_REPLIES) {
        if (other.probe === probe) continue;
        for (const reply of other.replies) expect(probe.read(0, reply), `${probe.service} read ${other.probe.service}`).toBeNull();
      }
    }
  });

  it('reads valid replies with single bytes flipped without throwing', () => {
    for (const { probe, replies } of VALID_REPLIES) {
      for (const reply of replies) {
        for (let at = 0; at < reply.length; at++) {
          const flipped = reply.slice();
          flipped[at] = flipped[at]! ^ 0xff;
          expect(() => probe.read(0, flipped), `${probe.service} byte ${at}`).not.toThrow();
        }
      }
    }
  });
});
