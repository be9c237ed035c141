import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

/**
 * A DNS server on 127.0.0.1 that answers every A query with one address (and AAAA with none): the
 * stand-in for a customer's name server that resolves their webhook's host to an address of ours
 * (DNS rebinding). Just enough of RFC 1035 for one question per query.
 */
export async function startDnsServer(
  address: string,
): Promise<{ server: string; close: () => Promise<void> }> {
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    // The question ends after its name's zero label, then QTYPE and QCLASS.
    let end = 12;
    while (query[end] !== 0 && end < query.length) end += (query[end] ?? 0) + 1;
    const question = query.subarray(12, end + 5);
    const type = query.readUInt16BE(end + 1);
    const isA = type === 1;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(isA ? 1 : 0, 6);
    const answer = Buffer.alloc(16);
    answer.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    answer.writeUInt16BE(1, 2);
    answer.writeUInt16BE(1, 4);
    answer.writeUInt32BE(60, 6);
    answer.writeUInt16BE(4, 10);
    for (const [i, octet] of address.split('.').entries()) answer.writeUInt8(Number(octet), 12 + i);
    socket.send(Buffer.concat([header, question, ...(isA ? [answer] : [])]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
