// The worker entry when Keyhold runs from its TypeScript sources (vitest, `pnpm keyhold`): it
// registers tsx in this worker thread, then loads the TypeScript entry. The pool starts it with
// `--conditions=keyhold-source`, so workspace packages resolve to their sources here as they do
// on the main thread. A build runs `crypto-worker.js` instead and needs none of this.
import { register } from 'tsx/esm/api';

register();
const entry = await import('./crypto-worker.ts');
export default entry.default;
