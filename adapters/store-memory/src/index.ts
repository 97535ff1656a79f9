/**
 * @keyhold/store-memory — the in-memory Store adapter.
 * @module
 */
export { MemoryStore } from './memory-store.js';
