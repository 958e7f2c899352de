import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { CheckRun, CheckTaskKind, CheckTaskMap, CheckTaskMessage, CheckTaskReply } from './check-task';

/** The pool refused a task because `queueLimit` tasks already wait: the caller's job should be retried later. */
export class CheckEnginesBusyError extends Error {
  readonly code = 'check_engines_busy';
}
/** The engine call failed or took longer than the timeout. */
export class CheckTaskError extends Error {}

type Pending = { msg: CheckTaskMessage; run?: CheckRun; order: number; resolve: (v: unknown) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout };
type Slot = { worker: Worker; busy?: Pending; ready: Promise<void>; isReady: boolean };

export type CheckWorkerPoolOptions = { workers?: number; queueLimit: number; timeoutMs: number; logger: Logger };

/** The compiled worker script: beside this file when running from dist/, or in dist/ when this file runs as TypeScript (tests). */
function workerScript(): string {
  const beside = path.join(__dirname, 'check.worker.js');
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '..', '..', 'dist', 'src', 'checks', 'check.worker.js');
}

/**
 * A fixed set of worker threads (one per core by default), each holding the offline models loaded once.
 * Tasks wait in a bounded queue: past `queueLimit` waiting tasks `run` throws CheckEnginesBusyError at
 * once, so memory stays bounded and the job queue (which retries the job) does the waiting. A task that
 * overruns `timeoutMs` is rejected and its worker replaced (a stuck inference cannot be interrupted).
 */
export class CheckWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  private constructor(private readonly opts: CheckWorkerPoolOptions & { workers: number }) {}

  static async start(opts: CheckWorkerPoolOptions): Promise<CheckWorkerPool> {
    const pool = new CheckWorkerPool({ ...opts, workers: opts.workers ?? os.availableParallelism() });
    for (let i = 0; i < pool.opts.workers; i++) pool.slots.push(pool.spawn());
    await Promise.all(pool.slots.map((s) => s.ready));
    return pool;
  }

  get size(): number {
    return this.slots.length;
  }

  /** Tasks waiting for a worker (not counting those running). */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs one engine call. `run`, when given, is the session's run the call belongs to: the worker reuses the
   * face analyses of the run's earlier calls (an image analysed once per session) and adds this call's, and
   * the queue serves calls in the order their runs started (a call outside a run: when it was made), so an
   * earlier session's next check goes before a later session's, and sessions submitted together are decided
   * one after another rather than all at the end.
   */
  run<K extends CheckTaskKind>(kind: K, input: CheckTaskMap[K]['input'], run?: CheckRun): Promise<CheckTaskMap[K]['output']> {
    if (this.closed) return Promise.reject(new CheckTaskError('The check worker pool is closed.'));
    if (this.queue.length >= this.opts.queueLimit) return Promise.reject(new CheckEnginesBusyError(`${this.queue.length} check tasks are already waiting.`));
    return new Promise((resolve, reject) => {
      const task: Pending = { msg: { id: this.nextId++, kind, input }, run, order: run?.startedAt ?? performance.now(), resolve: resolve as (v: unknown) => void, reject };
      const after = this.queue.findIndex((t) => t.order > task.order);
      this.queue.splice(after < 0 ? this.queue.length : after, 0, task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new CheckTaskError('The check worker pool closed.'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(workerScript());
    const slot: Slot = { worker, ready: Promise.resolve(), isReady: false };
    slot.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (m === 'ready') {
          worker.off('message', onMessage);
          slot.isReady = true;
          worker.on('message', (reply: CheckTaskReply) => this.onReply(slot, reply));
          resolve();
          this.dispatch();
        } else if (m && typeof m === 'object' && 'fatal' in m) reject(new CheckTaskError(`check worker failed to start: ${String(m.fatal)}`));
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    slot.ready.catch(() => undefined);
    worker.on('error', (e) => this.opts.logger.error({ err: e }, 'check worker error'));
    worker.on('exit', (code) => {
      const i = this.slots.indexOf(slot);
      if (slot.busy) this.finish(slot, new CheckTaskError(`check worker exited (code ${code}) during the task`));
      if (i >= 0 && !this.closed) {
        this.opts.logger.warn({ code }, 'check worker exited; starting a new one');
        this.slots[i] = this.spawn();
      }
    });
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || !slot.isReady) continue;
      const task = this.queue.shift()!;
      slot.busy = task;
      task.timer = setTimeout(() => {
        this.finish(slot, new CheckTaskError(`The check engine did not answer within ${this.opts.timeoutMs} ms.`));
        void slot.worker.terminate();
      }, this.opts.timeoutMs);
      slot.worker.postMessage(task.run ? { ...task.msg, faces: task.run.faces } : task.msg);
    }
  }

  private onReply(slot: Slot, reply: CheckTaskReply): void {
    if (!slot.busy || slot.busy.msg.id !== reply.id) return;
    if (reply.ok) {
      if (slot.busy.run && reply.faces) Object.assign(slot.busy.run.faces, reply.faces);
      this.finish(slot, undefined, reply.output);
    }
    else this.finish(slot, new CheckTaskError(reply.error));
  }

  private finish(slot: Slot, error: Error | undefined, output?: unknown): void {
    const task = slot.busy;
    if (!task) return;
    slot.busy = undefined;
    clearTimeout(task.timer);
    if (error) task.reject(error);
    else task.resolve(output);
    setImmediate(() => this.dispatch());
  }
}
