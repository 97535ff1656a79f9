// The worker entry when Keyhold runs from its TypeScript sources (vitest, `pnpm keyhold`): it
// registers tsx in this worker thread, then loads the TypeScript entry. A build runs
// `pglite-worker.js` instead and needs none of this.
import { register } from 'tsx/esm/api';

register();
await import('./pglite-worker.ts');
