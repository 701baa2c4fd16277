/**
 * The bench's medians of rounds (test/bench/statistics.ts): the registry bench's re-import and conversion
 * alone take turns, and each time is the median of its rounds, not one round's.
 */
import { secondsRange, withMedians } from '../bench/statistics';

describe('rounds taking turns, their times as medians', () => {
  const rounds = [
    { summary: 'first', seconds: 2.4, cpuSeconds: 1.1, javaMs: 90 },
    { summary: 'second', seconds: 1.5, cpuSeconds: 3.0, javaMs: 40 },
    { summary: 'third', seconds: 1.8, cpuSeconds: 1.3, javaMs: 60 },
  ];

  it('takes each time as the median of its own rounds, the rest from the first round', () => {
    const timed = withMedians(rounds, ['seconds', 'cpuSeconds']);
    expect(timed).toEqual({
      summary: 'first',
      seconds: 1.8,
      cpuSeconds: 1.3,
      javaMs: 90,
      roundSeconds: [2.4, 1.5, 1.8],
    });
    expect(withMedians(rounds, ['seconds', 'cpuSeconds', 'javaMs']).javaMs).toBe(60);
  });

  it('takes the mean of the two middle rounds of an even number', () => {
    expect(withMedians(rounds.slice(0, 2), ['seconds']).seconds).toBeCloseTo(1.95);
  });

  it('prints the rounds’ lowest and highest seconds', () => {
    expect(secondsRange([2.4, 1.5, 1.8])).toBe('1.50–2.40 s');
  });
});
