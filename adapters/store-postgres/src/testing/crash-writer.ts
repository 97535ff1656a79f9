/**
 * Child process of the crash test: opens a PGlite store in the directory given as argv[2]
 * and commits activities one transaction at a time, printing each committed id. The
 * parent kills it with SIGKILL mid-stream; it never closes the store.
 */
import { createPgliteStore } from '../pglite-driver.js';
import { activity } from './records.js';

const store = await createPgliteStore({ dataDir: process.argv[2]! });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const record = activity('crash-org', { parameters: { i } });
  await store.transaction((tx) => tx.activities.insert(record));
  process.stdout.write(`committed ${record.id}\n`);
}
