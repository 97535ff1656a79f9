/**
 * `@keyhold/notifier-log`: the development Notifier (JSON lines on stderr).
 * @module
 */
export { type LogNotifierOptions, logNotifier } from './log-notifier.js';
