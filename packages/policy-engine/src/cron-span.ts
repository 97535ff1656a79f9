/**
 * `CronSpan('<cron>', '<duration>', '<IANA tz>')`: true while the trusted time is inside
 * `[fire, fire + duration)` for some fire of the cron schedule, fires being read in the zone's
 * local wall-clock time (docs `features/policies/time-based-policies.mdx`).
 *
 * Cron: exactly 5 fields (minute hour day-of-month month day-of-week, day-of-week 0–6 with 0 =
 * Sunday); numbers, ranges `a-b`, lists `a,b` and `*`; no steps, names, macros or seconds.
 * Day-of-month and day-of-week are OR'd when both are restricted (neither is `*`).
 * Duration: whole `NdNhNm` (e.g. `8h`, `90m`, `1d12h`), more than zero and at most 7 days.
 *
 * Daylight saving (the docs are silent; this is Vixie cron's rule): a schedule fires at local
 * wall time W at the first instant the zone's clock reads W or later. A time skipped by a
 * spring-forward gap therefore fires at the end of the gap (02:30 → 03:00), and a time repeated
 * by a fall-back fires once, at its first occurrence. The window is elapsed time from the fire.
 * Assumes a zone changes its UTC offset at most once in any 24 hours (true of real zones).
 */
import { civilFromDays, daysFromCivil } from './civil.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
export const MAX_SPAN_MS = 7 * DAY;

export interface CronSchedule {
  readonly minutes: readonly boolean[];
  readonly hours: readonly boolean[];
  /** Index 1–31. */
  readonly daysOfMonth: readonly boolean[];
  /** Index 1–12. */
  readonly months: readonly boolean[];
  /** Index 0–6, 0 = Sunday. */
  readonly daysOfWeek: readonly boolean[];
  readonly dayOfMonthRestricted: boolean;
  readonly dayOfWeekRestricted: boolean;
}

export interface CronSpanSpec {
  readonly schedule: CronSchedule;
  readonly durationMs: number;
  readonly timeZone: string;
}

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 6 },
] as const;

function parseField(
  text: string,
  spec: (typeof FIELDS)[number],
): { set: boolean[]; restricted: boolean } | { error: string } {
  const set = new Array<boolean>(spec.max + 1).fill(false);
  if (text === '*') {
    for (let v = spec.min; v <= spec.max; v++) set[v] = true;
    return { set, restricted: false };
  }
  for (const item of text.split(',')) {
    const m = /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(item);
    if (!m) {
      if (item.includes('/')) return { error: `step values ('${item}') are not supported` };
      if (/[a-z]/i.test(item)) {
        return {
          error: `names ('${item}') are not supported in the ${spec.name} field; use numbers`,
        };
      }
      return { error: `'${item}' is not a number, a range or '*' in the ${spec.name} field` };
    }
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (lo < spec.min || hi > spec.max || lo > spec.max || hi < spec.min) {
      return { error: `${spec.name} '${item}' is outside ${spec.min}-${spec.max}` };
    }
    if (lo > hi) return { error: `range '${item}' in the ${spec.name} field runs backwards` };
    for (let v = lo; v <= hi; v++) set[v] = true;
  }
  return { set, restricted: true };
}

/** Parse a 5-field cron expression; returns an error detail on failure. */
export function parseCron(text: string): CronSchedule | { error: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('@')) return { error: `cron macros ('${trimmed}') are not supported` };
  const fields = trimmed === '' ? [] : trimmed.split(/[ \t]+/);
  if (fields.length !== 5) {
    return {
      error: `a cron expression has 5 fields (minute hour day-of-month month day-of-week), '${text}' has ${fields.length}`,
    };
  }
  const parsed = [];
  for (let i = 0; i < 5; i++) {
    const r = parseField(fields[i] as string, FIELDS[i] as (typeof FIELDS)[number]);
    if ('error' in r) return r;
    parsed.push(r);
  }
  const [mi, h, dom, mo, dow] = parsed as [
    { set: boolean[]; restricted: boolean },
    { set: boolean[]; restricted: boolean },
    { set: boolean[]; restricted: boolean },
    { set: boolean[]; restricted: boolean },
    { set: boolean[]; restricted: boolean },
  ];
  return {
    minutes: mi.set,
    hours: h.set,
    daysOfMonth: dom.set,
    months: mo.set,
    daysOfWeek: dow.set,
    dayOfMonthRestricted: dom.restricted,
    dayOfWeekRestricted: dow.restricted,
  };
}

/** Parse an `NdNhNm` duration into milliseconds; returns an error detail on failure. */
export function parseSpanDuration(text: string): { ms: number } | { error: string } {
  const m = /^(?:(\d{1,5})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?$/.exec(text);
  if (!m || text === '') {
    return {
      error: `'${text}' is not a duration of whole days, hours and minutes (e.g. '8h', '1d12h', '90m')`,
    };
  }
  const ms = (Number(m[1] ?? 0) * 1440 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * MINUTE;
  if (ms <= 0) return { error: `duration '${text}' must be greater than zero` };
  if (ms > MAX_SPAN_MS) return { error: `duration '${text}' is longer than 7 days` };
  return { ms };
}

/** Wall-clock offsets of one IANA zone, read through Intl. */
export class ZoneClock {
  private readonly format: Intl.DateTimeFormat;

  constructor(readonly timeZone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Local wall time minus UTC, in ms, at instant `ms` (whole seconds). */
  offsetAt(ms: number): number {
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    for (const part of this.format.formatToParts(ms)) {
      switch (part.type) {
        case 'year':
          year = Number(part.value);
          break;
        case 'month':
          month = Number(part.value);
          break;
        case 'day':
          day = Number(part.value);
          break;
        case 'hour':
          hour = Number(part.value);
          break;
        case 'minute':
          minute = Number(part.value);
          break;
        case 'second':
          second = Number(part.value);
          break;
      }
    }
    const wall =
      (daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000;
    return wall - Math.floor(ms / 1000) * 1000;
  }

  /**
   * The latest wall-clock time (as naive ms) the zone's clock has shown at or before instant `t`.
   * Equal to the wall time at `t` except during the hour a fall-back repeats.
   */
  maxWallUpTo(t: number): number {
    const off = this.offsetAt(t);
    const offBefore = this.offsetAt(t - DAY);
    if (offBefore <= off) return t + off;
    // The clock went back in (t - 1 day, t]: find the first second T with the new offset.
    let lo = Math.floor((t - DAY) / 1000);
    let hi = Math.floor(t / 1000);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.offsetAt(mid * 1000) === offBefore) lo = mid;
      else hi = mid;
    }
    return Math.max(t + off, hi * 1000 - 1 + offBefore);
  }
}

const clocks = new Map<string, ZoneClock>();

/** The clock of an IANA zone, or an error detail when the name is not one. */
export function zoneClock(timeZone: string): ZoneClock | { error: string } {
  const cached = clocks.get(timeZone);
  if (cached) return cached;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timeZone)) {
    return { error: `'${timeZone}' is not an IANA time zone name (e.g. 'America/New_York')` };
  }
  let clock: ZoneClock;
  try {
    clock = new ZoneClock(timeZone);
  } catch {
    return { error: `'${timeZone}' is not an IANA time zone name (e.g. 'America/New_York')` };
  }
  if (clocks.size > 1000) clocks.clear();
  clocks.set(timeZone, clock);
  return clock;
}

function dayMatches(s: CronSchedule, days: number): boolean {
  const { month, day, weekday } = civilFromDays(days);
  if (!s.months[month]) return false;
  const dom = s.daysOfMonth[day] === true;
  const dow = s.daysOfWeek[weekday] === true;
  return s.dayOfMonthRestricted && s.dayOfWeekRestricted ? dom || dow : dom && dow;
}

/**
 * Whether instant `nowMs` lies in `[fire, fire + duration)` for some fire. A fire for wall time W
 * happens at or before instant t exactly when W ≤ maxWallUpTo(t), so the answer is whether some
 * matching W satisfies maxWallUpTo(now − duration) < W ≤ maxWallUpTo(now).
 */
export function cronSpanActive(spec: CronSpanSpec, clock: ZoneClock, nowMs: number): boolean {
  const s = spec.schedule;
  const low = clock.maxWallUpTo(nowMs - spec.durationMs);
  const high = clock.maxWallUpTo(nowMs);
  let w = Math.floor(low / MINUTE) * MINUTE + MINUTE;
  while (w <= high) {
    const days = Math.floor(w / DAY);
    if (dayMatches(s, days)) {
      const minuteOfDay = (w - days * DAY) / MINUTE;
      let m = minuteOfDay % 60;
      for (let h = Math.floor(minuteOfDay / 60); h < 24; h++, m = 0) {
        if (!s.hours[h]) continue;
        for (; m < 60; m++) {
          if (s.minutes[m]) return days * DAY + (h * 60 + m) * MINUTE <= high;
        }
      }
    }
    w = (days + 1) * DAY;
  }
  return false;
}
