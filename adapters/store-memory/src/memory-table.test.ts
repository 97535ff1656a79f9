import { fieldColumns, type TableSpec } from '@keyhold/store-tables';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Journal } from './journal.js';
import { MemoryTable } from './memory-table.js';

interface Row {
  organizationId: string;
  rowId: string;
  userId: string;
  createdAt: number;
}

const ROWS: TableSpec<Row> = {
  table: 'rows',
  fields: fieldColumns<Row>({
    organizationId: 'text',
    rowId: 'text',
    userId: 'text',
    createdAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: { name: 'rows_pkey', sqlName: 'rows_pkey', fields: ['organizationId', 'rowId'] },
  createdAt: 'createdAt',
};

const row = fc.record({
  organizationId: fc.constantFrom('o1', 'o2', 'o3'),
  rowId: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  userId: fc.constantFrom('u1', 'u2'),
  createdAt: fc.integer({ min: 0, max: 3 }),
});

const operation = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), row }),
  fc.record({ op: fc.constant('update' as const), row }),
  fc.record({ op: fc.constant('delete' as const), row }),
  fc.record({ op: fc.constant('mark' as const) }),
  fc.record({ op: fc.constant('rollbackToMark' as const) }),
);

/** What a lookup by equal fields must answer: every row walked, as the table did before. */
function walked(table: MemoryTable<Row>, userId: string, organizationId: string): Row[] {
  return table
    .inInsertionOrder((r) => r.organizationId === organizationId && r.userId === userId)
    .sort((a, b) => a.createdAt - b.createdAt);
}

describe('MemoryTable groups (lister, grouped, counter)', () => {
  it('answer what a walk of every row answers, through inserts, updates, deletes and rollbacks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ops: fc.array(operation, { maxLength: 12 }), commit: fc.boolean() }), {
          maxLength: 8,
        }),
        async (transactions) => {
          let seq = 0;
          const table = new MemoryTable(ROWS, () => ++seq);
          const byUser = table.lister(['organizationId', 'userId']);
          const ofOrganization = table.grouped(['organizationId']);
          const inOrganization = table.counter(['organizationId']);
          const journal = new Journal();
          const repository = table.over(journal);
          for (const { ops, commit } of transactions) {
            journal.begin();
            let mark = journal.mark();
            for (const step of ops) {
              if (step.op === 'mark') mark = journal.mark();
              else if (step.op === 'rollbackToMark') journal.rollbackTo(mark);
              else if (step.op === 'delete') {
                await repository.delete(step.row.organizationId, step.row.rowId);
              } else if (step.op === 'update') await repository.update(step.row);
              else await repository.insert(step.row).catch(() => {}); // a taken key: a conflict
            }
            if (commit) journal.commit();
            else journal.rollback();
            for (const organizationId of ['o1', 'o2', 'o3']) {
              for (const userId of ['u1', 'u2']) {
                expect(byUser(organizationId, userId)).toEqual(
                  walked(table, userId, organizationId),
                );
              }
              const all = table.inInsertionOrder((r) => r.organizationId === organizationId);
              expect(ofOrganization(organizationId)).toEqual(all);
              expect(inOrganization(organizationId)).toBe(all.length);
              expect(await repository.list(organizationId)).toEqual(
                [...all].sort((a, b) => a.createdAt - b.createdAt),
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('indexes the rows a table already holds when a group is first asked for', async () => {
    const table = new MemoryTable(
      ROWS,
      (() => {
        let seq = 0;
        return () => ++seq;
      })(),
    );
    const journal = new Journal();
    journal.begin();
    await table
      .over(journal)
      .insert({ organizationId: 'o1', rowId: 'a', userId: 'u1', createdAt: 1 });
    journal.commit();
    expect(table.counter(['userId'])('u1')).toBe(1);
    expect(table.grouped(['userId'])('u2')).toEqual([]);
  });
});
