/**
 * A CryptoWorkPool on worker threads (piscina): the jobs of `@keyhold/keys` crypto-jobs.ts run
 * beside the event loop, so a request deriving a hundred accounts no longer stalls the others.
 * Bounded: `threads` workers (default: the machine's available parallelism), started with the
 * pool and kept until `close()`, so no request pays a worker's start-up; jobs beyond them wait in
 * a FIFO queue. `close()` lets queued and running jobs finish, then stops the workers.
 *
 * What crosses to a worker is the job's input: a 64-byte BIP39 seed for one derivation, an
 * opened 32-byte private key for one signature, public keys for addresses. Secret inputs are
 * copied once into buffers of their own, the caller's bytes zeroed, and the copies moved (not
 * cloned) to the worker, whose job zeroes them. Byte arrays of the answer are moved back.
 * @module
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  CRYPTO_JOB_SECRETS,
  type CryptoJobInput,
  type CryptoJobName,
  type CryptoJobOutput,
  type CryptoWorkPool,
} from '@keyhold/keys';
import { Piscina } from 'piscina';
import type { CryptoTask } from './crypto-worker.js';
import { errorOf, type JobAnswer } from './job-messages.js';

/** Options of the piscina pool. */
export interface PiscinaCryptoWorkPoolOptions {
  /** How many worker threads. Default: `os.availableParallelism()`. At least 1. */
  readonly threads?: number;
  /**
   * The worker's entry module and its Node flags. Default: `crypto-worker.js` beside this file
   * (from a build), or `crypto-worker-source.mjs` under tsx (from sources). For tests.
   */
  readonly worker?: { readonly filename: string; readonly execArgv?: readonly string[] };
}

/** Running from TypeScript sources (vitest, tsx) rather than from a build. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The worker entry next to this file, and how a worker must start to load it. */
function workerEntry(): { filename: string; execArgv: string[] } {
  if (!FROM_SOURCES) {
    return {
      filename: fileURLToPath(new URL('./crypto-worker.js', import.meta.url)),
      execArgv: [],
    };
  }
  return {
    filename: fileURLToPath(new URL('./crypto-worker-source.mjs', import.meta.url)),
    execArgv: ['--conditions=keyhold-source'],
  };
}

/**
 * The pool. Give each Keyhold instance its own: `Keyhold.close()` closes the pool it was given
 * (a vault you open with it uses it too, and closes before it).
 * @example
 * const pool = new PiscinaCryptoWorkPool({ threads: 2 });
 * const vault = new SoftwareKeyVault({ masterKey, workPool: pool });
 * // … on shutdown, after the last request:
 * await pool.close();
 */
export class PiscinaCryptoWorkPool implements CryptoWorkPool {
  readonly kind = 'piscina';
  readonly threads: number;
  readonly #piscina: Piscina<{ task: CryptoTask }, JobAnswer>;
  #closing: Promise<void> | undefined;
  /** Jobs accepted and not yet answered: `close()` waits for them (piscina's own close does not
   * wait for jobs still queued). */
  readonly #pending = new Set<Promise<unknown>>();
  /** Rejects when a worker fails before any job was answered: the workers cannot start. */
  readonly #startFailure: Promise<never>;
  #failStart: (error: Error) => void = () => {};
  #answered = false;
  #broken = false;
  #ready: Promise<void> | undefined;

  constructor(options: PiscinaCryptoWorkPoolOptions = {}) {
    const threads = options.threads ?? availableParallelism();
    if (!Number.isSafeInteger(threads) || threads < 1) {
      throw new RangeError(`worker pool: threads must be an integer ≥ 1, got ${threads}`);
    }
    this.threads = threads;
    const { filename, execArgv } = options.worker ?? workerEntry();
    this.#piscina = new Piscina({
      filename,
      execArgv: [...(execArgv ?? [])],
      name: 'default',
      // Started now and kept: a worker that loads the key code on demand would add its
      // start-up (tens of ms from a build, about a second from sources) to a request.
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Jobs are synchronous, so a worker runs them one at a time whatever this says. Two per
      // worker means one runs and the next already waits in the worker's port: a worker that
      // finishes a job starts the next at once, instead of sleeping until the event loop has
      // read its answer and posted another (a futex wake per job). Measured with 1 ms jobs on
      // 2 threads and 16 callers, six runs each: 1.07–1.16 against 1.12–1.19 ms of CPU per job,
      // 556–701 against 617–979 µs of wall time per job. The cost: a job may wait behind one
      // job on a busy worker.
      concurrentTasksPerWorker: 2,
    });
    // A worker that cannot load its code never takes a job: without this, every job would wait
    // in the queue forever. Piscina reports it (and a worker that dies between jobs, which it
    // replaces) as an 'error' event; one before any job was answered means the pool cannot work.
    this.#startFailure = new Promise<never>((_, reject) => {
      this.#failStart = reject;
    });
    this.#startFailure.catch(() => {}); // reported to the jobs, and by ready()
    this.#piscina.on('error', (error: unknown) => this.#startFailed(error));
  }

  /** A worker failed before any job was answered: the pool cannot work; say why, once. */
  #startFailed(error: unknown): void {
    if (this.#answered || this.#broken) return;
    this.#broken = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.#failStart(new Error(`crypto worker pool: a worker failed to start: ${reason}`));
  }

  /**
   * Resolves once a worker has run a first job; rejects, with the reason, when the workers
   * cannot start (then every `run` rejects the same way instead of waiting).
   * @example
   * await pool.ready(); // at start-up, to fail early
   */
  ready(): Promise<void> {
    this.#ready ??= this.run('addresses', { items: [] }).then(() => undefined);
    return this.#ready;
  }

  /** Jobs waiting for a worker. */
  get queueSize(): number {
    return this.#piscina.queueSize;
  }

  /** Worker threads alive now (0 once closed or idle). */
  get liveThreads(): number {
    return this.#piscina.threads.length;
  }

  async run<N extends CryptoJobName>(
    name: N,
    input: CryptoJobInput<N>,
  ): Promise<CryptoJobOutput<N>> {
    if (this.#closing) throw new Error('worker pool is closed');
    // Secret inputs: a copy in a buffer of its own, moved to the worker; the caller's bytes
    // are zeroed now, as the inline pool's job would zero them.
    const moved = { ...input } as Record<string, unknown>;
    const transferList: ArrayBuffer[] = [];
    for (const field of CRYPTO_JOB_SECRETS[name] ?? []) {
      const secret = moved[field];
      if (!(secret instanceof Uint8Array)) continue;
      const copy = new Uint8Array(secret.length);
      copy.set(secret);
      secret.fill(0);
      moved[field] = copy;
      transferList.push(copy.buffer);
    }
    if (this.#broken) {
      for (const buffer of transferList) new Uint8Array(buffer).fill(0);
      await this.#startFailure;
    }
    const job = this.#piscina.run({ task: { name, input: moved } } as never, { transferList });
    this.#pending.add(job);
    let answer: JobAnswer;
    try {
      answer = await Promise.race([job, this.#startFailure]);
    } catch (error) {
      // Piscina rejects the job a failing worker held with the worker's own error.
      this.#startFailed(error);
      if (this.#broken) await this.#startFailure;
      throw error;
    } finally {
      this.#pending.delete(job);
    }
    this.#answered = true;
    if (!answer.ok) throw errorOf(answer);
    return answer.value as CryptoJobOutput<N>;
  }

  /** Lets every queued and running job finish, then stops the workers. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      // Workers that cannot start answer nothing: their queued jobs are not waited for.
      if (!this.#broken) {
        while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
      }
      // Nothing is left to finish; `force` also stops workers that are still starting at once,
      // rather than after they have loaded the key code (seconds from sources).
      await this.#piscina.close({ force: true });
    })();
    return this.#closing;
  }
}
