import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cron, duration, instant, TIME_ZONES } from './__testing__/arbitraries.js';
import { cronSpanBruteForce } from './__testing__/reference-evaluator.js';
import {
  type CronSpanSpec,
  cronSpanActive,
  parseCron,
  parseSpanDuration,
  type ZoneClock,
  zoneClock,
} from './cron-span.js';
import { parseTimestamp } from './timestamp.js';

function span(cronText: string, durationText: string, timeZone: string): CronSpanSpec {
  const schedule = parseCron(cronText);
  const d = parseSpanDuration(durationText);
  if ('error' in schedule || 'error' in d) throw new Error('bad span');
  return { schedule, durationMs: d.ms, timeZone };
}

function active(cronText: string, durationText: string, timeZone: string, iso: string): boolean {
  return cronSpanActive(
    span(cronText, durationText, timeZone),
    zoneClock(timeZone) as ZoneClock,
    Date.parse(iso),
  );
}

describe('CronSpan', () => {
  it('business hours: 9:00 New York on weekdays, 8 hours, start inclusive and end exclusive', () => {
    const bh = (iso: string) => active('0 9 * * 1-5', '8h', 'America/New_York', iso);
    expect(bh('2026-03-03T13:59:59Z')).toBe(false); // Tue 08:59:59 EST
    expect(bh('2026-03-03T14:00:00Z')).toBe(true); // Tue 09:00 EST
    expect(bh('2026-03-03T21:59:59.999Z')).toBe(true); // 16:59:59.999
    expect(bh('2026-03-03T22:00:00Z')).toBe(false); // 17:00
    expect(bh('2026-03-07T15:00:00Z')).toBe(false); // Saturday
    // after the spring-forward of 2026-03-08 the fire follows local time
    expect(bh('2026-03-09T12:59:00Z')).toBe(false); // Mon 08:59 EDT
    expect(bh('2026-03-09T13:00:00Z')).toBe(true); // Mon 09:00 EDT
  });

  it('overnight windows are elapsed time: they end at 07:00 after spring-forward, 05:00 after fall-back (docs)', () => {
    const night = (iso: string) => active('0 22 * * *', '8h', 'America/New_York', iso);
    expect(night('2026-03-08T03:00:00Z')).toBe(true); // Sat 22:00 EST
    expect(night('2026-03-08T10:59:59Z')).toBe(true); // 06:59:59 EDT
    expect(night('2026-03-08T11:00:00Z')).toBe(false); // 07:00 EDT
    expect(night('2026-11-01T02:00:00Z')).toBe(true); // Sat 22:00 EDT
    expect(night('2026-11-01T09:59:59Z')).toBe(true); // 04:59:59 EST
    expect(night('2026-11-01T10:00:00Z')).toBe(false); // 05:00 EST
    expect(night('2026-07-01T09:59:00Z')).toBe(true); // ordinary night: until 06:00 EDT
    expect(night('2026-07-01T10:00:00Z')).toBe(false);
  });

  it('a time skipped by spring-forward fires when the gap ends; a repeated time fires once', () => {
    // 02:30 does not exist on 2026-03-08 in New York: the fire is at 03:00 EDT (07:00Z)
    expect(active('30 2 * * *', '10m', 'America/New_York', '2026-03-08T06:59:59Z')).toBe(false);
    expect(active('30 2 * * *', '10m', 'America/New_York', '2026-03-08T07:05:00Z')).toBe(true);
    expect(active('30 2 * * *', '10m', 'America/New_York', '2026-03-08T07:10:00Z')).toBe(false);
    expect(active('30 2 * * *', '10m', 'America/New_York', '2026-03-09T06:35:00Z')).toBe(true);
    // 01:30 happens twice on 2026-11-01: only the first (EDT, 05:30Z) fires
    expect(active('30 1 * * *', '10m', 'America/New_York', '2026-11-01T05:35:00Z')).toBe(true);
    expect(active('30 1 * * *', '10m', 'America/New_York', '2026-11-01T06:35:00Z')).toBe(false);
  });

  it("ORs day-of-month and day-of-week when both are restricted, ANDs through '*'", () => {
    expect(active('0 9 1 * 1', '1h', 'UTC', '2026-03-01T09:30:00Z')).toBe(true); // the 1st, a Sunday
    expect(active('0 9 1 * 1', '1h', 'UTC', '2026-03-02T09:30:00Z')).toBe(true); // a Monday
    expect(active('0 9 1 * 1', '1h', 'UTC', '2026-03-03T09:30:00Z')).toBe(false);
    expect(active('0 9 * * 1', '1h', 'UTC', '2026-03-01T09:30:00Z')).toBe(false);
    expect(active('0 9 1 * *', '1h', 'UTC', '2026-03-01T09:30:00Z')).toBe(true);
  });

  it('handles lists, ranges, months and 7-day windows', () => {
    expect(active('0 0 1 * *', '7d', 'UTC', '2026-03-07T23:59:59Z')).toBe(true);
    expect(active('0 0 1 * *', '7d', 'UTC', '2026-03-08T00:00:00Z')).toBe(false);
    expect(active('15,45 8-9 * 6 *', '5m', 'Europe/London', '2026-06-10T07:47:00Z')).toBe(true); // 08:47 BST
    expect(active('15,45 8-9 * 6 *', '5m', 'Europe/London', '2026-07-10T07:47:00Z')).toBe(false);
    expect(active('0 0 29 2 *', '1d', 'UTC', '2028-02-29T12:00:00Z')).toBe(true);
    expect(active('0 0 31 * *', '1h', 'Asia/Kolkata', '2026-01-30T18:45:00Z')).toBe(true); // 00:15 IST
  });

  it('agrees with a minute-by-minute brute force, across zones and daylight saving', () => {
    fc.assert(
      fc.property(
        cron,
        duration(7 * 1440),
        fc.constantFrom(...TIME_ZONES),
        instant,
        (c, d, tz, now) => {
          const s = span(c, d, tz);
          expect(cronSpanActive(s, zoneClock(tz) as ZoneClock, now)).toBe(
            cronSpanBruteForce(s, now),
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('agrees with the brute force around the 2026 transitions of New York, London and Lord Howe', () => {
    const around = fc.constantFrom(
      Date.UTC(2026, 2, 8, 7),
      Date.UTC(2026, 10, 1, 6),
      Date.UTC(2026, 2, 29, 1),
      Date.UTC(2026, 9, 25, 1),
      Date.UTC(2026, 3, 4, 15),
      Date.UTC(2026, 9, 3, 15),
    );
    fc.assert(
      fc.property(
        cron,
        duration(600),
        fc.constantFrom('America/New_York', 'Europe/London', 'Australia/Lord_Howe'),
        around,
        fc.integer({ min: -180, max: 600 }),
        (c, d, tz, base, minutes) => {
          const s = span(c, d, tz);
          const now = base + minutes * 60_000;
          expect(cronSpanActive(s, zoneClock(tz) as ZoneClock, now)).toBe(
            cronSpanBruteForce(s, now),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('parse helpers', () => {
  it('parses durations of whole days, hours and minutes up to 7 days', () => {
    expect(parseSpanDuration('8h')).toEqual({ ms: 8 * 3_600_000 });
    expect(parseSpanDuration('90m')).toEqual({ ms: 90 * 60_000 });
    expect(parseSpanDuration('1d12h')).toEqual({ ms: 36 * 3_600_000 });
    expect(parseSpanDuration('7d')).toEqual({ ms: 7 * 86_400_000 });
    for (const bad of ['', '7d1m', '0m', 'h', '1h1d', '1.5h', '1H', ' 1h', '1h 2m']) {
      expect(parseSpanDuration(bad), bad).toHaveProperty('error');
    }
  });

  it('parses timestamps with a zero offset only, to the nanosecond', () => {
    const base = parseTimestamp('2026-03-01T00:00:00Z');
    expect(base).toEqual({ ns: BigInt(Date.UTC(2026, 2, 1)) * 1_000_000n });
    for (const same of [
      '2026-03-01t00:00:00z',
      '2026-03-01T00:00:00+00:00',
      '2026-03-01T00:00:00-00:00',
    ]) {
      expect(parseTimestamp(same)).toEqual(base);
    }
    expect(parseTimestamp('2026-03-01T00:00:00.000000001Z')).toEqual({
      ns: BigInt(Date.UTC(2026, 2, 1)) * 1_000_000n + 1n,
    });
    expect(parseTimestamp('2024-02-29T23:59:59Z')).toHaveProperty('ns');
    expect(parseTimestamp('1970-01-01T00:00:00Z')).toEqual({ ns: 0n });
    for (const bad of [
      '2026-03-01T00:00:00+01:00',
      '2026-02-29T00:00:00Z',
      '2026-03-01 00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T00:00:60Z',
      '2026-03-01',
      '2026-3-1T00:00:00Z',
    ]) {
      expect(parseTimestamp(bad), bad).toHaveProperty('error');
    }
  });

  it('agrees with Date.parse on the instant of any millisecond timestamp', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31) }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(parseTimestamp(iso)).toEqual({ ns: BigInt(ms) * 1_000_000n });
      }),
    );
  });
});
