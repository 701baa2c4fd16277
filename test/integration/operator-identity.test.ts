/**
 * Who an operator CLI says ran it (infra/cli/operator.ts): in AWS, the principal STS GetCallerIdentity
 * resolves the credentials to, asked of a stand-in STS endpoint on loopback; elsewhere the OS user
 * marked local.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { STSClient } from '@aws-sdk/client-sts';
import { operatorIdentity } from '../../infra/cli/operator';

const ARN = 'arn:aws:sts::123456789012:assumed-role/Operator/anna';

/** An STS endpoint that answers GetCallerIdentity with `arn` (the Query protocol's XML). */
async function stubSts(arn: string | null): Promise<{ url: string; actions: string[]; close: () => void }> {
  const actions: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      actions.push(new URLSearchParams(body).get('Action') ?? '');
      response.writeHead(200, { 'Content-Type': 'text/xml' });
      response.end(
        '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>' +
          (arn ? `<Arn>${arn}</Arn>` : '') +
          '<UserId>AROAEXAMPLE:anna</UserId><Account>123456789012</Account></GetCallerIdentityResult>' +
          '<ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, actions, close: () => server.close() };
}

const client = (endpoint: string) => () =>
  new STSClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });

it('is, in AWS, the principal the credentials resolve to', async () => {
  const sts = await stubSts(ARN);
  try {
    expect(await operatorIdentity(true, client(sts.url))).toBe(ARN);
    expect(sts.actions).toEqual(['GetCallerIdentity']);
  } finally {
    sts.close();
  }
});

it('fails, in AWS, when STS names no principal, rather than record nobody', async () => {
  const sts = await stubSts(null);
  try {
    await expect(operatorIdentity(true, client(sts.url))).rejects.toThrow(/no principal/);
  } finally {
    sts.close();
  }
});

it('is, off AWS, the OS user marked local, without asking STS', async () => {
  const sts = await stubSts(ARN);
  try {
    expect(await operatorIdentity(false, client(sts.url))).toBe(`local:${os.userInfo().username}`);
    expect(sts.actions).toEqual([]);
  } finally {
    sts.close();
  }
});
