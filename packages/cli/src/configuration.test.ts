/**
 * Settings: for every option, a flag beats the environment, the environment beats the
 * `--config` file, the file beats the default (a fast-check property over which sources are
 * present); exclusive options keep only the best source's; malformed values are usage errors
 * naming where they came from; `--print-config` redacts secrets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, envNameOf, redactSettings, resolveSettings } from './configuration.js';

const dir = mkdtempSync(join(tmpdir(), 'keyhold-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONS = {
  port: { type: 'string', default: '8080' },
  'bootstrap-org-name': { type: 'string' },
  memory: { type: 'boolean' },
  data: { type: 'string' },
  postgres: { type: 'string' },
  'allow-private-webhooks': { type: 'boolean', default: false },
  'oidc-issuer': { type: 'string', multiple: true },
} as const;

let files = 0;
function configFile(content: unknown): string {
  const file = join(dir, `config-${files++}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('resolveSettings', () => {
  it('property: flag > env > file > default, per option', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (flag, env, file) => {
        const args = flag ? ['--bootstrap-org-name', 'from-flag'] : [];
        const environment = env ? { KEYHOLD_BOOTSTRAP_ORG_NAME: 'from-env' } : {};
        if (file) args.push('--config', configFile({ 'bootstrap-org-name': 'from-file' }));
        const { values, sources } = resolveSettings(args, OPTIONS, environment);
        const expected = flag ? 'flag' : env ? 'env' : file ? 'file' : undefined;
        expect(sources['bootstrap-org-name']).toBe(expected);
        expect(values['bootstrap-org-name']).toBe(expected && `from-${expected}`);
        expect(values.port).toBe('8080');
        expect(sources.port).toBe('default');
      }),
      { numRuns: 40 },
    );
  });

  it('reads booleans, lists and the documented aliases from the environment', () => {
    const { values, sources } = resolveSettings([], OPTIONS, {
      KEYHOLD_ALLOW_PRIVATE_WEBHOOKS: 'true',
      KEYHOLD_OIDC_ISSUER: 'https://a.example, https://b.example',
      KEYHOLD_POSTGRES_URL: 'postgres://u:pw@db/keyhold',
    });
    expect(values['allow-private-webhooks']).toBe(true);
    expect(values['oidc-issuer']).toEqual(['https://a.example', 'https://b.example']);
    expect(values.postgres).toBe('postgres://u:pw@db/keyhold');
    expect(sources.postgres).toBe('env');
    expect(envNameOf('bootstrap-org-name')).toBe('KEYHOLD_BOOTSTRAP_ORG_NAME');
  });

  it('keeps only the best source of exclusive options: --memory overrides KEYHOLD_DATA', () => {
    const exclusive = [['memory', 'data', 'postgres']] as const;
    const chosen = resolveSettings(['--memory'], OPTIONS, { KEYHOLD_DATA: '/srv/keyhold' }, [
      [...exclusive[0]],
    ]);
    expect(chosen.values.memory).toBe(true);
    expect(chosen.values.data).toBeUndefined();
    // Two from the same source still conflict, for the command to refuse.
    const both = resolveSettings(['--memory', '--data', 'd'], OPTIONS, {}, [[...exclusive[0]]]);
    expect([both.values.memory, both.values.data]).toEqual([true, 'd']);
  });

  it('refuses malformed settings as usage errors that say where they came from', () => {
    const refusal = (args: string[], env: Record<string, string> = {}) => {
      try {
        resolveSettings(args, OPTIONS, env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal([], { KEYHOLD_MEMORY: 'perhaps' })).toBe(
      'KEYHOLD_MEMORY must be true or false, got "perhaps"',
    );
    const unknown = configFile({ prot: '1' });
    expect(refusal(['--config', unknown])).toBe(`--config ${unknown}: unknown setting "prot"`);
    const wrongType = configFile({ memory: 'yes' });
    expect(refusal(['--config', wrongType])).toBe(
      `${wrongType}: "memory" must be true or false, got "yes"`,
    );
    const notJson = configFile('{port: 1');
    expect(refusal(['--config', notJson])).toMatch(new RegExp(`^--config ${notJson}: `));
    expect(refusal(['--config', join(dir, 'missing.json')])).toMatch(/ENOENT/);
    expect(refusal(['--config', configFile([1])])).toMatch(/expected a JSON object/);
  });

  it('redacts URL passwords and secret-named settings, not public keys', () => {
    expect(
      redactSettings({
        postgres: 'postgres://keyhold:hunter2@db:5432/keyhold',
        smtp: 'smtps://mailer:pa55@mail.example:465',
        'sms-url': 'https://user:token@sms.example/send',
        'bootstrap-api-public-key': '02abcdef',
        'client-secret': 'shh',
        port: '8080',
      }),
    ).toEqual({
      postgres: 'postgres://keyhold:***@db:5432/keyhold',
      smtp: 'smtps://mailer:***@mail.example:465',
      'sms-url': 'https://user:***@sms.example/send',
      'bootstrap-api-public-key': '02abcdef',
      'client-secret': '***',
      port: '8080',
    });
  });
});

describe('postgresTarget', () => {
  it('takes the schema out of a --postgres URL and leaves the rest to the driver', async () => {
    const { postgresTarget } = await import('./store-selection.js');
    expect(
      postgresTarget('postgres://u:pw@db:5432/keyhold?schema=tenant_a&sslmode=require'),
    ).toEqual({
      connectionString: 'postgres://u:pw@db:5432/keyhold?sslmode=require',
      schema: 'tenant_a',
    });
    expect(postgresTarget('postgres://db/keyhold')).toEqual({
      connectionString: 'postgres://db/keyhold',
    });
    expect(postgresTarget('not a url')).toEqual({ connectionString: 'not a url' });
  });

  it('takes `pool_max` out as the pool size, and refuses one that is not 1 to 1000', async () => {
    const { postgresTarget } = await import('./store-selection.js');
    expect(postgresTarget('postgres://db/keyhold?pool_max=4&sslmode=require')).toEqual({
      connectionString: 'postgres://db/keyhold?sslmode=require',
      poolOptions: { max: 4 },
    });
    for (const bad of ['0', '1001', '2.5', 'four', '']) {
      expect(() => postgresTarget(`postgres://db/keyhold?pool_max=${bad}`)).toThrow(
        `--postgres: pool_max must be an integer from 1 to 1000, got "${bad}"`,
      );
    }
  });
});
