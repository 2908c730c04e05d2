import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decayedLevel,
  decayWeight,
  DEFAULT_DECAY_LAMBDA,
  levelDrop,
  validateDecayLambda,
} from './decay.ts';

const level = (anchorLevel: number, anchorPosition: number, newest: number, lambda = 0.3) =>
  decayedLevel({ anchorLevel, anchorPosition, newestReadyPosition: newest, lambda }).level;

describe('fading (MM-BLK-17/18)', () => {
  it('defaults lambda to 0.30', () => {
    expect(DEFAULT_DECAY_LAMBDA).toBe(0.3);
  });

  it.each([
    [5, 0, 2, 0.3, 4],
    [5, 0, 3, 0.3, 3],
    [5, 0, 5, 0.3, 2],
    [5, 0, 7, 0.3, 1],
    [5, 0, 9, 0.3, 0],
    [5, 0, 4, 0.1, 4],
    [5, 0, 1, 0.3, 5],
    [3, 0, 2, 0.3, 2],
  ])('acceptance: (%i,%i,%i) with lambda %f -> level %i', (anchor, pos, newest, lambda, want) => {
    expect(level(anchor, pos, newest, lambda)).toBe(want);
  });

  it('weight(0,2) = e^-0.6 ≈ 0.5488', () => {
    const result = decayedLevel({
      anchorLevel: 5,
      anchorPosition: 0,
      newestReadyPosition: 2,
      lambda: 0.3,
    });
    expect(result.age).toBe(2);
    expect(result.weight).toBeCloseTo(0.5488, 4);
    expect(decayWeight(2, 0.3)).toBeCloseTo(Math.exp(-0.6), 12);
  });

  it('one thread, as (age, level): [0 L5] -> [1 L5, 0 L5] -> [2 L4, 1 L5, 0 L5]', () => {
    // Each block is anchored at L5 at its 1-based rank among the thread's ready blocks.
    const snapshot = (newest: number) =>
      Array.from({ length: newest }, (_, index) => {
        const r = decayedLevel({
          anchorLevel: 5,
          anchorPosition: index + 1,
          newestReadyPosition: newest,
          lambda: DEFAULT_DECAY_LAMBDA,
        });
        return [r.age, r.level];
      });
    expect([snapshot(1), snapshot(2), snapshot(3)]).toEqual([
      [[0, 5]],
      [
        [1, 5],
        [0, 5],
      ],
      [
        [2, 4],
        [1, 5],
        [0, 5],
      ],
    ]);
  });

  it.each([
    [0, 5],
    [1, 5],
    [2, 4],
    [3, 3],
    [4, 3],
    [5, 2],
    [6, 2],
    [7, 1],
    [8, 1],
    [9, 0],
    [10, 0],
    [25, 0],
  ])('MM-BLK-19 default path: %i ready blocks after it -> L%i', (after, want) => {
    expect(level(5, 10, 10 + after)).toBe(want);
  });

  it.each([
    [1, 0],
    [0.71, 0],
    [0.7, 1],
    [0.51, 1],
    [0.5, 2],
    [0.31, 2],
    [0.3, 3],
    [0.16, 3],
    [0.15, 4],
    [0.09, 4],
    [0.08, 5],
    [0, 5],
  ])('levelDrop(%f) = %i (thresholds are strict)', (weight, drop) => {
    expect(levelDrop(weight)).toBe(drop);
  });

  it('clamps at L0 and treats a newest position before the anchor as age 0', () => {
    expect(level(2, 0, 9)).toBe(0);
    const early = decayedLevel({
      anchorLevel: 4,
      anchorPosition: 6,
      newestReadyPosition: 3,
      lambda: 0.3,
    });
    expect(early).toEqual({ age: 0, weight: 1, level: 4 });
  });

  it('never fades with lambda 0', () => {
    expect(level(5, 0, 1000, 0)).toBe(5);
  });
});

describe('validateDecayLambda', () => {
  it.each([0, 0.1, 0.3, 0.4, 2])('accepts %f', (lambda) => {
    expect(() => validateDecayLambda(lambda)).not.toThrow();
  });

  it.each([-0.01, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects %f with a clear message',
    (lambda) => {
      expect(() => validateDecayLambda(lambda)).toThrow(/finite number >= 0/);
      expect(() => level(5, 0, 1, lambda)).toThrow(/finite number >= 0/);
    },
  );
});

describe('fading properties', () => {
  const lambda = fc.double({ min: 0, max: 0.5, noNaN: true });
  const anchorLevel = fc.integer({ min: 0, max: 5 });
  const position = fc.integer({ min: 0, max: 1000 });

  it('level is non-increasing as the newest ready position grows', () => {
    fc.assert(
      fc.property(anchorLevel, position, position, position, lambda, (a, anchor, p, q, l) => {
        const [near, far] = p <= q ? [p, q] : [q, p];
        expect(level(a, anchor, far, l)).toBeLessThanOrEqual(level(a, anchor, near, l));
      }),
    );
  });

  it('level is an integer in 0..5 and weight is in (0, 1]', () => {
    fc.assert(
      fc.property(anchorLevel, position, position, lambda, (a, anchor, newest, l) => {
        const r = decayedLevel({
          anchorLevel: a,
          anchorPosition: anchor,
          newestReadyPosition: newest,
          lambda: l,
        });
        expect(Number.isInteger(r.level)).toBe(true);
        expect(r.level).toBeGreaterThanOrEqual(0);
        expect(r.level).toBeLessThanOrEqual(5);
        expect(r.level).toBeLessThanOrEqual(a);
        expect(r.weight).toBeGreaterThan(0);
        expect(r.weight).toBeLessThanOrEqual(1);
        expect(r.age).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
