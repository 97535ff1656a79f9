// Prints, as one JSON line, every module URL resolved while importing process.argv[2] — the
// modules an embedding host loads with it. Run with `node --import tsx --conditions=keyhold-source`.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;

const { port1, port2 } = new MessageChannel();
const resolved = new Set();
port1.on('message', (url) => resolved.add(url));
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
  data: { port: port2 },
  transferList: [port2],
});
await import(process.argv[2]);
// The hooks run on their own thread: let their last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 300));
port1.close();
process.stdout.write(`${JSON.stringify([...resolved])}\n`);
