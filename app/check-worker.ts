import '../src/compile-cache';
import { runWorkerProcess } from './worker';

/**
 * The check-worker tier: a worker that takes only the sessions' check jobs and runs the engines
 * (WORKER_QUEUES=checks, whatever the environment says), beside `dist/app/worker.js` processes started
 * with WORKER_QUEUES=jobs CHECK_WORKERS=0. One image, three roles by command (docs/deploy.md).
 */
runWorkerProcess({ WORKER_QUEUES: 'checks' });
