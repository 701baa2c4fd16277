import { isolateRequestScopes, RequestScope } from '../../lib/request-scope';

describe('RequestScope', () => {
  it('gives overlapping runs each their own value', async () => {
    const scope = new RequestScope<string>();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const first = scope.run('first', async () => {
      await blocked;
      return scope.get();
    });
    const second = await scope.run('second', async () => scope.get());
    release();
    expect([await first, second]).toEqual(['first', 'second']);
  });

  it('once isolated, code outside every run sees no value while a run is in flight (a fixture beside a request)', async () => {
    isolateRequestScopes();
    const scope = new RequestScope<string>();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const running = scope.run('worker', async () => {
      await blocked;
      return scope.get();
    });
    const outside = scope.get();
    release();
    expect(await running).toBe('worker');
    expect(outside).toBeUndefined();
  });
});
