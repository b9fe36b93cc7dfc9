// The services the udp scan probes, one per well-known UDP port, and the
// names people know them by, as a sentence starts with them: the severity
// table's reasons and the page's words use the same. Without zod: the
// page's script and the check client import it.

export const UDP_SERVICES = [
  'qotd',
  'chargen',
  'dns',
  'tftp',
  'portmap',
  'ntp',
  'netbios',
  'snmp',
  'cldap',
  'ike',
  'ipmi',
  'openvpn',
  'mssql',
  'ssdp',
  'ws-discovery',
  'sip',
  'mdns',
  'coap',
  'ubiquiti',
  'memcached',
] as const;
export type UdpService = (typeof UDP_SERVICES)[number];

export const UDP_SERVICE_NAMES: Readonly<Record<UdpService, string>> = Object.freeze({
  qotd: 'QOTD',
  chargen: 'chargen',
  dns: 'DNS',
  tftp: 'TFTP',
  portmap: 'The RPC portmapper',
  ntp: 'NTP',
  netbios: 'NetBIOS name service',
  snmp: 'SNMP',
  cldap: 'CLDAP',
  ike: 'IKE (IPsec)',
  ipmi: 'IPMI',
  openvpn: 'OpenVPN',
  mssql: 'The SQL Server Browser',
  ssdp: 'SSDP',
  'ws-discovery': 'WS-Discovery',
  sip: 'SIP',
  mdns: 'mDNS',
  coap: 'CoAP',
  ubiquiti: 'Ubiquiti discovery',
  memcached: 'Memcached',
});
