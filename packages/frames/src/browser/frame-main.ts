/// <reference lib="dom" />
/**
 * What both frames do at start: listen for the parent's channel, apply the parent's settings,
 * and show every refusal — a refused message or a request that threw — in the status line.
 * Each frame gives only the requests it alone answers.
 * @module
 */
import { type FrameReply, type FrameRequest, listenForParent } from './frame-channel.js';
import { applySettings, showStatus } from './frame-view.js';

export interface FrameMainOptions {
  readonly allowedOrigins: readonly string[];
  /** The value of `PUBLIC_KEY_READY`: the embedded key (export) or `''` (import). */
  readonly readyValue: () => string;
  /** Answers the frame's own requests (all but `APPLY_SETTINGS`); throws on any other. */
  readonly answer: (request: FrameRequest) => Promise<FrameReply>;
  /** The status line until the first request. */
  readonly waiting: string;
}

/** Starts the frame. */
export function startFrame(options: FrameMainOptions): void {
  const answer = async (request: FrameRequest): Promise<FrameReply> => {
    if (request.type !== 'APPLY_SETTINGS') return options.answer(request);
    applySettings(request.value);
    return { type: 'SETTINGS_APPLIED', value: true };
  };
  listenForParent({
    allowedOrigins: options.allowedOrigins,
    readyValue: options.readyValue,
    answer: async (request) => {
      try {
        return await answer(request);
      } catch (error) {
        showStatus(`Refused: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    },
    refused: (reason) => showStatus(`Refused ${reason}`),
  });
  showStatus(options.waiting);
}
