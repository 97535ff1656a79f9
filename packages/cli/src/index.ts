/**
 * @keyhold/cli — the `keyhold` command (`serve`, `keygen`, `conformance`, `policy`) and the
 * operator-facing choices behind `keyhold serve`: which store (memory, PGlite in a data
 * directory, Postgres) and the master key that goes with it.
 * @module
 */

export { type DataDirectory, DataDirectoryError, openDataDirectory } from './data-directory.js';
export {
  DEFAULT_DATA_DIR,
  type OpenedStore,
  openStore,
  type StoreChoice,
  StoreConfigurationError,
} from './store-selection.js';
