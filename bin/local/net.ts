import dgram from 'node:dgram';
import net from 'node:net';

/** A port nothing listens on right now (the OS picks it), for emulators that need one named. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something already listens on a TCP port (or it cannot be bound here). */
export function tcpPortTaken(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/** Whether a UDP port is already bound (or cannot be bound here). */
export function udpPortTaken(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    socket.once('error', () => {
      socket.close();
      resolve(true);
    });
    socket.bind(port, host, () => socket.close(() => resolve(false)));
  });
}
