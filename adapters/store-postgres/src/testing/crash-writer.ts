/**
 * Child process of the crash test: opens a PGlite store in the directory given as argv[2]
 * and commits activities one transaction at a time, printing each committed id: by turns in a
 * transaction (BEGIN … COMMIT) and as a decided insert that runs alone, committed as it
 * completes (deferred-begin.ts). The parent kills it with SIGKILL mid-stream; it never closes
 * the store.
 */
import { createPgliteStore } from '../pglite-driver.js';
import { activity, policyEvaluation } from './records.js';

const store = await createPgliteStore({ dataDir: process.argv[2]! });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const record = activity('crash-org', { parameters: { i } });
  await store.transaction((tx) =>
    i % 2 === 0
      ? tx.activities.insert(record)
      : tx.activities.insertDecided(record, policyEvaluation('crash-org', record.id), {
          body: JSON.stringify({ i }),
          now: Date.now(),
        }),
  );
  process.stdout.write(`committed ${record.id}\n`);
}
