/** The development notifier: one JSON line per message, and a refusal in production. */
import { NotifierChannelUnsupportedError } from '@keyhold/activities';
import { describe, expect, it } from 'vitest';
import { logNotifier } from './log-notifier.js';

describe('logNotifier', () => {
  it('writes each message as one JSON line', async () => {
    const lines: string[] = [];
    const notifier = logNotifier({ write: (line) => lines.push(line), now: () => 0 });
    await notifier.send({ channel: 'sms', to: '+15555550100', text: 'Your code is 123456' });
    expect(lines).toEqual([
      '{"notifier":"keyhold-dev","channel":"sms","to":"+15555550100","text":"Your code is 123456","at":"1970-01-01T00:00:00.000Z"}\n',
    ]);
  });

  it('refuses every message in production, writing nothing', async () => {
    const lines: string[] = [];
    const notifier = logNotifier({ production: true, write: (line) => lines.push(line) });
    await expect(
      notifier.send({ channel: 'sms', to: '+15555550100', text: 'Your code is 123456' }),
    ).rejects.toThrow(NotifierChannelUnsupportedError);
    expect(lines).toEqual([]);
  });
});
