/** The TOKEN authorizer and the token lifecycle, against DynamoDB Local. */
import { handler as authorize } from '../../functions/authorize';
import { getToken } from '../../lib/tokens/store';
import { createToken, hashToken, listTokenInfo, revoke } from '../../lib/tokens/tokens';
import { useFreshTable } from '../support/table';

useFreshTable();

const METHOD_ARN =
  'arn:aws:execute-api:eu-west-1:123456789012:abc123/dev/GET/v1/companies/BE/0403170701/financials';
const tokenEvent = (header: string) => ({
  type: 'TOKEN' as const,
  authorizationToken: header,
  methodArn: METHOD_ARN,
});

const spec = {
  accountId: 'acme',
  userEmail: 'ann@acme.example',
  scopes: ['companies:read' as const],
  expiresAt: null,
};

describe('tokens', () => {
  it('are random, shown once and stored only as a SHA-256 hash', async () => {
    const first = await createToken(spec);
    const second = await createToken(spec);

    expect(first.token).toMatch(/^cd_[A-Za-z0-9_-]{43}$/);
    expect(second.token).not.toBe(first.token);
    const stored = await getToken(hashToken(first.token));
    expect(stored).toMatchObject({
      hash: hashToken(first.token),
      accountId: 'acme',
      scopes: ['companies:read'],
    });
    expect(JSON.stringify(stored)).not.toContain(first.token);
    expect(JSON.stringify(await listTokenInfo())).not.toContain(first.token);
  });
});

describe('the authorizer', () => {
  it('allows the whole API and passes account, user and scopes on', async () => {
    const { token, info } = await createToken(spec);

    const result = await authorize(tokenEvent(`Bearer ${token}`));

    expect(result.principalId).toBe(info.tokenId);
    expect(result.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/dev/*',
      },
    ]);
    expect(result.context).toEqual({
      accountId: 'acme',
      userEmail: 'ann@acme.example',
      scopes: 'companies:read',
    });
  });

  it.each([
    ['an empty header', ''],
    ['a Basic header', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l'],
    ['garbage', 'Bearer not a token!'],
    ['an unknown token', 'Bearer cd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('refuses %s with Unauthorized', async (_name, header) => {
    await expect(authorize(tokenEvent(header))).rejects.toThrow(/^Unauthorized$/);
  });

  it('refuses a revoked token', async () => {
    const { token, info } = await createToken(spec);

    expect(await revoke(info.tokenId)).toBe(true);

    await expect(authorize(tokenEvent(`Bearer ${token}`))).rejects.toThrow('Unauthorized');
    expect((await listTokenInfo()).find((t) => t.tokenId === info.tokenId)?.revokedAt).toEqual(
      expect.any(String),
    );
  });

  it('refuses an expired token', async () => {
    const { token } = await createToken({ ...spec, expiresAt: new Date(Date.now() - 1000).toISOString() });

    await expect(authorize(tokenEvent(`Bearer ${token}`))).rejects.toThrow('Unauthorized');
  });

  it('accepts a token until its expiry', async () => {
    const { token } = await createToken({ ...spec, expiresAt: new Date(Date.now() + 60_000).toISOString() });

    await expect(authorize(tokenEvent(`Bearer ${token}`))).resolves.toMatchObject({
      principalId: expect.any(String),
    });
  });

  it('reports revoking an unknown token', async () => {
    expect(await revoke('000000000000')).toBe(false);
  });
});
