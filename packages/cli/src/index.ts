/**
 * @keyhold/cli — the `keyhold` command (`serve`, `keygen`, `conformance`, `policy`) and the
 * operator-facing choices behind `keyhold serve`: which store (memory, PGlite in a data
 * directory, Postgres) and the master key that goes with it, and `startServer()`, which serves
 * a Keyhold instance over HTTP through Express or Koa.
 * @module
 */

export { type DataDirectory, DataDirectoryError, openDataDirectory } from './data-directory.js';
export { parseEvmRpcFlags } from './evm-rpc-flags.js';
export { HTTP_SERVER_DEFAULTS, type HttpServerLimits, type TlsCredentials } from './http-server.js';
export {
  createPayGateway,
  PAY_PATH_PREFIX,
  type PayGatewayOptions,
  type RunningPayGateway,
  withPayGateway,
} from './pay-gateway.js';
export {
  type HttpAdapterKind,
  type RunningServer,
  type ServeOptions,
  startServer,
} from './start-server.js';
export {
  DEFAULT_DATA_DIR,
  type OpenedStore,
  openStore,
  type StoreChoice,
  StoreConfigurationError,
} from './store-selection.js';
