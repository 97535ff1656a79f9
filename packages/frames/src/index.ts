/**
 * `@keyhold/frames`: Keyhold's own export and import frames, for `@turnkey/iframe-stamper`
 * and the wallet kits pointed at them through their frame URLs.
 * @module
 */

export { isAllowedFrameOrigin, parseFrameOrigins } from './frame-origins.js';
export {
  FRAME_PATHS,
  type FrameKind,
  type FramePage,
  type RenderFramePagesInput,
  renderFramePages,
} from './frame-pages.js';
export { bundleFrameScripts, type FrameScripts } from './frame-scripts.js';
