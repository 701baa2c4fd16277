/** How the lookalike fan-out cuts a section's subjects into shards (lib/lookalikes/fan-out.ts). */
import { SHARD_SUBJECTS, shardsOf } from '../../lib/lookalikes/fan-out';

describe('lookalike shards', () => {
  it.each([
    [1, 50_000],
    [50_000, 50_000],
    [50_001, 50_000],
    [2_300_000, 50_000],
    [101, 10],
  ])('cuts %i subjects into even ranges of at most %i, every subject once', (count, size) => {
    const shards = shardsOf('G', true, count, size);
    expect(shards.length).toBe(Math.ceil(count / size));
    expect(shards[0]!.from).toBe(0);
    expect(shards.at(-1)!.to).toBe(count);
    for (let i = 1; i < shards.length; i++) expect(shards[i]!.from).toBe(shards[i - 1]!.to);
    const sizes = shards.map(({ from, to }) => to - from);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(size);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(shards.every((s) => s.section === 'G' && s.listed)).toBe(true);
  });

  it('plans nothing for a section with no subject', () => {
    expect(shardsOf('G', false, 0, SHARD_SUBJECTS)).toEqual([]);
  });
});
