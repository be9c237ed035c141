import { type AddressInfo, createServer } from 'node:net';

/**
 * An `https:` JWKS URI on this machine that counts who connects and hangs up: fetching keys from it
 * fails (as an unreachable issuer's would), but a test sees that the fetch was tried.
 */
export async function countingJwksEndpoint() {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    uri: `https://127.0.0.1:${port}/jwks`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
