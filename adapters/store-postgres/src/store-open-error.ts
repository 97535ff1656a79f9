/**
 * Why a store refused to open. The message says what is wrong and what to do; `reason`
 * lets a CLI or a readiness probe tell the cases apart.
 * @module
 */
export type StoreOpenFailure =
  /** The database holds a migration version newer than this code knows. */
  | 'newer-schema'
  /** An applied migration differs from the file of the same version, or versions have gaps. */
  | 'migration-mismatch'
  /** The data directory or schema holds something that is not a Keyhold database. */
  | 'foreign'
  /** The data directory or database is damaged. */
  | 'corrupt'
  /** Another process has the data directory open. */
  | 'in-use'
  /** The database server could not be reached. */
  | 'unreachable';

export class StoreOpenError extends Error {
  constructor(
    readonly reason: StoreOpenFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}
