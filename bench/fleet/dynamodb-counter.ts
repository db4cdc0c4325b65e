/**
 * A loopback HTTP proxy in front of DynamoDB Local that counts each request by its operation
 * (X-Amz-Target) and the kind of item it names (the key strings of its body with the ids left
 * out: `ORG#CLUSTER CLUSTER`, `ORG#INFRAENV#HOST LIVENESS`...).
 * Run as a process of its own (`FLEET_COUNT_DYNAMODB=1 npm run bench -- fleet`) so its CPU stays
 * out of the service's; it prints its counts as JSON on SIGTERM, overall and by the function that
 * asked.
 *
 *   node --import tsx bench/fleet/dynamodb-counter.ts <listen port> <DynamoDB Local URL>
 */
import { createServer, request } from 'node:http';

const [port, target] = [Number(process.argv[2]), new URL(process.argv[3]!)];
const counts = new Map<string, number>();
const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
const byCaller = new Map<string, number>();
let total = 0;
const countByCaller = (key: string) => byCaller.set(key, (byCaller.get(key) ?? 0) + 1);

createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    // The running total of table requests (the stream's polling left out), for a bench reading it
    // between phases: GET /__count is answered here, not passed on.
    if (incoming.method === 'GET' && incoming.url === '/__count') return outgoing.end(String(total));
    if (incoming.method === 'GET' && incoming.url === '/__counts') return outgoing.end(JSON.stringify(Object.fromEntries(byCaller)));
    if (!String(incoming.headers['x-amz-target'] ?? '').startsWith('DynamoDBStreams')) total += 1;
    const body = Buffer.concat(chunks);
    const operation = String(incoming.headers['x-amz-target'] ?? '?').replace(/^DynamoDB(Streams)?_\d+\./, '');
    // The first two key strings the request names (pk and sk), ids left out: which kind of item it is about.
    const strings = [...body.toString('utf8', 0, Math.min(body.length, 4096)).matchAll(/"S":"([^"]*)"/g)].slice(0, 2).map((m) => m[1]!);
    const subject =
      strings
        .map(
          (value) =>
            value
              .split('#')
              .filter((part) => /^[A-Z_]+$/.test(part))
              .join('#') || '…',
        )
        .join(' ') || '-';
    count(`${operation} ${subject}`);
    // The function or task that asked, from the SDK's user agent: app/<name>, set per local function
    // and container task (Powertools appends its own -PT-… mark to the app id; the runtime's own
    // clients have only that mark).
    const appId = /\bapp\/(\S+)/.exec(String(incoming.headers['user-agent'] ?? ''))?.[1] ?? '';
    const caller = appId.replace(/-?PT-.*$/, '') || 'runtime';
    countByCaller(`${caller}: ${operation} ${subject}`);
    const forwarded = request(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      outgoing.writeHead(502);
      outgoing.end();
    });
    forwarded.end(body);
  });
}).listen(port, '127.0.0.1', () => process.send?.({ type: 'listening' }));

process.on('SIGTERM', () => {
  const sorted = (tally: Map<string, number>) => Object.fromEntries([...tally].sort((a, b) => b[1] - a[1]));
  process.stdout.write(`${JSON.stringify({ requests: sorted(counts), byCaller: sorted(byCaller) })}\n`, () => process.exit(0));
});
