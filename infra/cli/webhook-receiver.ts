/**
 * `npm run webhook-receiver -- [--port 4000] [--host 127.0.0.1]`: a receiver of webhook deliveries
 * (contract §12) for trying them on the local stage. It verifies each delivery's signature with the
 * `standardwebhooks` package against WEBHOOK_SECRET (the `whsec_…` secret shown when the endpoint was
 * created or rotated; from the environment, never the command line), answers 204 to a valid one and
 * 401 to any other, and prints one line per delivery: `<webhook-id> <type> <title or data>`.
 *
 *   curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
 *        -d '{"url":"http://127.0.0.1:4000/hook"}' http://localhost:3000/v1/webhooks   # → its secret
 *   WEBHOOK_SECRET=whsec_… npm run webhook-receiver -- --port 4000
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const USAGE = 'usage: WEBHOOK_SECRET=whsec_… npm run webhook-receiver -- [--port 4000] [--host 127.0.0.1]';

function main(): void {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '4000' }, host: { type: 'string', default: '127.0.0.1' } },
  });
  const secret = process.env['WEBHOOK_SECRET'];
  const port = Number(values.port);
  if (!secret?.startsWith('whsec_') || !Number.isInteger(port)) {
    console.error(USAGE);
    process.exit(2);
  }
  const verifier = new Webhook(secret);
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = verifier.verify(body, request.headers as Record<string, string>) as {
          id: string;
          type: string;
          data: { company?: { country: string; companyNumber: string }; update?: { title: string } };
        };
        const { company, update } = event.data;
        const what = update && company ? `${company.country}/${company.companyNumber}: ${update.title}` : '';
        console.log(`${event.id} ${event.type} ${what}`.trim());
        response.writeHead(204).end();
      } catch (error) {
        console.error(`refused a delivery: ${(error as Error).message}`);
        response.writeHead(401).end();
      }
    });
  });
  server.listen(port, values.host, () => {
    console.log(`receiving webhook deliveries on http://${values.host}:${port}/ (Ctrl-C stops)`);
  });
}

main();
