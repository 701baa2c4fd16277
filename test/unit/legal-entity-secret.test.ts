/**
 * The stage's legal entity id secret (contract §6.4): read once per process from the stack's Secrets
 * Manager secret, through the real protocol (a local HTTP endpoint speaking Secrets Manager's JSON
 * protocol); a deployed stage's table is never keyed by the local stage's constant.
 */
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const ENV_NAMES = [
  'LEGAL_ENTITY_SECRET',
  'LEGAL_ENTITY_SECRET_ARN',
  'DYNAMODB_ENDPOINT',
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
] as const;
const saved = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of ENV_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** A fresh copy of the module: its secret is kept per process, as in a Lambda between invocations. */
function freshIds(): typeof import('../../lib/legal-entities/ids') {
  let ids!: typeof import('../../lib/legal-entities/ids');
  jest.isolateModules(() => {
    ids = jest.requireActual('../../lib/legal-entities/ids');
  });
  return ids;
}

function clearStageEnv(): void {
  for (const name of ENV_NAMES) delete process.env[name];
}

describe("the stage's id scheme", () => {
  it('is the local constant on a DynamoDB endpoint of its own (the local stage)', () => {
    clearStageEnv();
    process.env['DYNAMODB_ENDPOINT'] = 'http://127.0.0.1:8000';
    const ids = freshIds();
    expect(ids.stageIdScheme().secret).toBe(ids.LOCAL_LEGAL_ENTITY_SECRET);
  });

  it('is LEGAL_ENTITY_SECRET when set', () => {
    clearStageEnv();
    process.env['LEGAL_ENTITY_SECRET'] = 'from-the-environment';
    expect(freshIds().stageIdScheme().secret).toBe('from-the-environment');
  });

  it("refuses a deployed stage's table without its secret, rather than keying ids by the constant", async () => {
    clearStageEnv();
    const ids = freshIds();
    expect(() => ids.stageIdScheme()).toThrow(ids.LegalEntitySecretMissingError);
    await expect(ids.loadStageIdScheme()).rejects.toThrow('LegalEntitySecretArn');
  });

  it('refuses to derive ids before the named secret was read', () => {
    clearStageEnv();
    process.env['LEGAL_ENTITY_SECRET_ARN'] = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:x';
    const ids = freshIds();
    expect(() => ids.stageIdScheme()).toThrow(ids.LegalEntitySecretMissingError);
  });

  describe('from Secrets Manager', () => {
    let server: Server;
    const requests: Array<{ target: string | undefined; body: unknown }> = [];

    beforeAll(async () => {
      server = createServer((request: IncomingMessage, response) => {
        let body = '';
        request.on('data', (part: Buffer) => (body += part.toString()));
        request.on('end', () => {
          requests.push({
            target: request.headers['x-amz-target'] as string | undefined,
            body: JSON.parse(body),
          });
          response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
          response.end(JSON.stringify({ ARN: 'arn', Name: 'secret', SecretString: 'stage-secret-from-sm' }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('reads it once per process and keys the ids with it', async () => {
      clearStageEnv();
      const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:legal-entity-id-key';
      process.env['LEGAL_ENTITY_SECRET_ARN'] = arn;
      process.env['AWS_ENDPOINT_URL_SECRETS_MANAGER'] =
        `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      process.env['AWS_REGION'] = 'eu-west-1';
      process.env['AWS_ACCESS_KEY_ID'] = 'test';
      process.env['AWS_SECRET_ACCESS_KEY'] = 'test';
      const ids = freshIds();

      const [first, second] = await Promise.all([ids.loadStageIdScheme(), ids.loadStageIdScheme()]);
      await ids.loadStageIdScheme();

      expect(first.secret).toBe('stage-secret-from-sm');
      expect(second).toBe(first);
      expect(ids.stageIdScheme()).toBe(first);
      expect(requests).toEqual([{ target: 'secretsmanager.GetSecretValue', body: { SecretId: arn } }]);
      const ref = { country: 'BE', companyNumber: '0403170701' } as const;
      expect(ids.legalEntityIdCandidate(ref, 0, ids.stageIdScheme())).not.toBe(
        ids.legalEntityIdCandidate(ref, 0, { ...first, secret: ids.LOCAL_LEGAL_ENTITY_SECRET }),
      );
    });
  });
});
