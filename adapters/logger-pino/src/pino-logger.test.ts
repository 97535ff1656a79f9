/**
 * The pino Logger: one JSON line per event with the level's name, the message and the fields;
 * nothing below the level; secret-named fields redacted at the top level and one level down.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pinoLogger } from './pino-logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

describe('pinoLogger', () => {
  it('writes one JSON line per event, with the level name, an ISO time, the message and fields', () => {
    const { lines, destination } = capture();
    const logger = pinoLogger({ level: 'info', destination });
    logger.info('listening', { url: 'http://127.0.0.1:8080' });
    logger.error('request failed', { errorId: 'e-1' });
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        url: 'http://127.0.0.1:8080',
        message: 'listening',
      },
      { level: 'error', time: expect.any(String), errorId: 'e-1', message: 'request failed' },
    ]);
    expect(new Date(lines[0]!.time as string).toISOString()).toBe(lines[0]!.time);
  });

  it('drops what is below its level, and writes nothing when silent', () => {
    const { lines, destination } = capture();
    const warn = pinoLogger({ level: 'warn', destination });
    warn.debug?.('detail');
    warn.info('request', { status: 200 });
    warn.warn('not ready');
    expect(lines.map((l) => l.message)).toEqual(['not ready']);
    const silent = pinoLogger({ level: 'silent', destination });
    silent.error('request failed');
    expect(lines).toHaveLength(1);
    const debug = pinoLogger({ level: 'debug', destination });
    debug.debug?.('detail');
    expect(lines.at(-1)).toMatchObject({ level: 'debug', message: 'detail' });
  });

  it('redacts secret-named fields, top level and nested', () => {
    const { lines, destination } = capture();
    pinoLogger({ destination }).info('oops', {
      privateKey: 'deadbeef',
      request: { stamp: 'eyJ…', path: '/public/v1/query/whoami' },
    });
    expect(lines[0]).toMatchObject({
      privateKey: '[redacted]',
      request: { stamp: '[redacted]', path: '/public/v1/query/whoami' },
    });
    expect(JSON.stringify(lines[0])).not.toContain('deadbeef');
  });

  it("censors a copy: the caller's fields are left as they were", () => {
    const { lines, destination } = capture();
    const fields = { mnemonic: 'abandon …', nested: { password: 'hunter2', kept: 1 }, n: 2 };
    pinoLogger({ destination }).warn('careful', fields);
    expect(lines[0]).toMatchObject({
      mnemonic: '[redacted]',
      nested: { password: '[redacted]', kept: 1 },
      n: 2,
    });
    expect(fields).toEqual({
      mnemonic: 'abandon …',
      nested: { password: 'hunter2', kept: 1 },
      n: 2,
    });
  });

  it("property: no secret-named field's value reaches a line, at the top level or one down", () => {
    const SECRETS = ['stamp', 'privateKey', 'mnemonic', 'otpCode', 'code', 'password', 'masterKey'];
    const secretName = fc.constantFrom(...SECRETS);
    const name = fc.oneof(
      secretName,
      fc.constantFrom('path', 'status', 'user', 'reason', 'kind', 'id', 'url', 'request'),
    );
    const secret = fc.string({ minLength: 12, maxLength: 20 }).map((s) => `SECRET-${s}`);
    const inner = fc.dictionary(name, fc.oneof(secret, fc.integer()), { maxKeys: 4 });
    const outer = fc.dictionary(name, fc.oneof(secret, fc.integer(), inner), { maxKeys: 5 });
    fc.assert(
      fc.property(outer, (fields) => {
        const { lines, destination } = capture();
        pinoLogger({ destination }).info('x', fields);
        const line = lines[0] as Record<string, unknown>;
        for (const [key, value] of Object.entries(fields)) {
          if (key === 'level' || key === 'time' || key === 'message') continue;
          if (SECRETS.includes(key)) expect(line[key]).toBe('[redacted]');
          else if (typeof value === 'object') {
            for (const [k, v] of Object.entries(value)) {
              const got = (line[key] as Record<string, unknown>)[k];
              expect(got).toBe(SECRETS.includes(k) ? '[redacted]' : v);
            }
          } else expect(line[key]).toBe(value);
        }
      }),
    );
  });
});
