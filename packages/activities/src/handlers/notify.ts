/**
 * Sending a message from inside an activity: what the Notifier's errors mean to the caller.
 * The message goes out inside the activity's transaction, so a transport that fails refuses
 * the request and nothing of it is stored; a commit that fails after the send leaves a mailed
 * secret (a code, a credential bundle) that nothing stored can use.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import {
  NotifierChannelUnsupportedError,
  type NotifierMessage,
  NotifierUnavailableError,
} from '../ports/notifier.js';
import type { ActivityContext } from './activity-handler.js';

/**
 * Sends `message` through the context's notifier.
 * @throws KeyholdError UNAVAILABLE (the transport is unreachable or refused the message: 503),
 *   NOTIFIER_NOT_CONFIGURED (no transport for the channel)
 * @example
 * await notify(ctx, renderOtpMessage({ … }));
 */
export async function notify(ctx: ActivityContext, message: NotifierMessage): Promise<void> {
  try {
    await ctx.notifier.send(message);
  } catch (error) {
    if (error instanceof NotifierUnavailableError) {
      throw new KeyholdError('UNAVAILABLE', { reason: 'the mail or SMS transport is unreachable' });
    }
    if (error instanceof NotifierChannelUnsupportedError) {
      throw new KeyholdError('NOTIFIER_NOT_CONFIGURED', {
        channel: error.channel,
        reason: error.reason,
      });
    }
    throw error;
  }
}
