/**
 * @keyhold/http-body — reading a Node request's body as raw bytes for Keyhold's HTTP adapters
 * (Express and Koa): bounded, decoded, refused early.
 * @module
 */
export { bodyLeftUnread, readRawBody } from './read-raw-body.js';
