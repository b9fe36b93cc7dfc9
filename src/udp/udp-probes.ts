// The udp scan's fixed list of probes, in port order: the services that
// reflect attacks or leak what they should not, as Shadowserver's daily
// reports name them (see each probe's file for what it sends and reads).
import { chargenProbe } from './probes/chargen-probe.js';
import { cldapProbe } from './probes/cldap-probe.js';
import { coapProbe } from './probes/coap-probe.js';
import { dnsProbe } from './probes/dns-probe.js';
import { ikeProbe } from './probes/ike-probe.js';
import { ipmiProbe } from './probes/ipmi-probe.js';
import { mdnsProbe } from './probes/mdns-probe.js';
import { memcachedProbe } from './probes/memcached-probe.js';
import { mssqlProbe } from './probes/mssql-probe.js';
import { netbiosProbe } from './probes/netbios-probe.js';
import { ntpProbe } from './probes/ntp-probe.js';
import { openvpnProbe } from './probes/openvpn-probe.js';
import { portmapProbe } from './probes/portmap-probe.js';
import { qotdProbe } from './probes/qotd-probe.js';
import { sipProbe } from './probes/sip-probe.js';
import { snmpProbe } from './probes/snmp-probe.js';
import { ssdpProbe } from './probes/ssdp-probe.js';
import { tftpProbe } from './probes/tftp-probe.js';
import { ubiquitiProbe } from './probes/ubiquiti-probe.js';
import type { UdpProbe } from './probes/udp-probe.js';
import { wsDiscoveryProbe } from './probes/ws-discovery-probe.js';

export const UDP_PROBES: readonly UdpProbe[] = [
  qotdProbe,
  chargenProbe,
  dnsProbe,
  tftpProbe,
  portmapProbe,
  ntpProbe,
  netbiosProbe,
  snmpProbe,
  cldapProbe,
  ikeProbe,
  ipmiProbe,
  openvpnProbe,
  mssqlProbe,
  ssdpProbe,
  wsDiscoveryProbe,
  sipProbe,
  mdnsProbe,
  coapProbe,
  ubiquitiProbe,
  memcachedProbe,
].sort((a, b) => a.port - b.port);
