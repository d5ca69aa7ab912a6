/**
 * The projection pipeline's own thread (PROJECTIONS_THREAD=worker, see pipeline-thread.ts): a
 * ProjectionPipeline over every projection, on connections of its own to the two SQLite files.
 * It reads the events, projects them and commits the read models here, off the event loop that
 * serves the requests; the event loop hears from it what it needs (each batch's events in brief,
 * and each projection's checkpoint and parking after every commit) and wakes it on every append.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventEmitter } from 'node:events';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { SecretSealer } from '#shared/sealing.js';
import { CustomerKeyring } from '#customers/personal-data/customer-keys.js';
import { PersonalDataEventStore } from '#customers/personal-data/personal-data-event-store.js';
import { UpcastingEventStore } from '#event-store/upcasting.js';
import { SERVICE_EVENT_VERSIONS } from '#platform/event-versions.js';
import { ProjectionPipeline, type PipelineOptions, type PipelineSource } from './projection-pipeline.js';
import type { FromPipelineThread, ThreadMasterKeys, ThreadRequest, ToPipelineThread } from './pipeline-thread.js';
import type { Projection } from './projection.js';

const { eventsFile, readModelsFile, projectionsModule, options, masterKeys } = workerData as {
  eventsFile: string;
  readModelsFile: string;
  projectionsModule: string;
  options: Omit<PipelineOptions, 'log'>;
  masterKeys: ThreadMasterKeys | null;
};
// Every projection of the service, from the module the event loop named (ServiceProjections.module).
const { allProjections } = (await import(projectionsModule)) as { allProjections(): Projection[] };
const port = parentPort!;
const post = (message: FromPipelineThread) => port.postMessage(message);

const store = new SqliteReadStore(readModelsFile, { writer: 'inline' });
// The events as the event loop reads them: personal data opened with the customers' keys (kept in
// this thread's read-store connection), or its placeholder once a key is destroyed (docs/personal-data.md).
const keyring = new CustomerKeyring(store, { waitForSealer: false });
if (masterKeys) {
  const b = (k: string) => Buffer.from(k, 'base64');
  keyring.attach(new SecretSealer(b(masterKeys.key), masterKeys.kid, masterKeys.previous.map((p) => ({ key: b(p.key), kid: p.kid }))));
}
// …and in their type's current shape, as on the event loop (docs/event-versions.md).
const events = new UpcastingEventStore(new PersonalDataEventStore(new SqliteEventStore(eventsFile, { writer: 'inline' }), keyring), SERVICE_EVENT_VERSIONS);
// The WAL is checkpointed beside the commits by the checkpointer of the main thread's writer thread
// (PipelineThread starts it), not inside them: SQLite's auto-checkpoint runs in the commit that crosses
// its threshold and stalls it for 50–150 ms. Kept only as a safety net, at 10,000 pages (40 MB), should
// that checkpointer stop.
await store.writerPragma('wal_autocheckpoint = 10000');

// The pipeline is woken by the main thread (`wake`, sent on every append the main thread's store
// announces: this process's own, and other processes' that its watch saw); it also polls as on the
// event loop. Reads ask the file, up to the announced position once following.
const appended = new EventEmitter();
appended.setMaxListeners(0);
/**
 * Once following (`start`), the highest position the event loop has announced: nothing after it is
 * projected yet (PipelineThreadFiles.announced; '' nothing yet); undefined before `start` (start-up's
 * catch-up reads to the head: nothing of this process is in flight then) or when the event loop gives
 * no bound.
 */
let bound: string | undefined;
const woken: PipelineSource = {
  async readAll(options) {
    if (bound === undefined) return events.readAll(options);
    if (bound === '' || (options.after !== null && options.after !== undefined && options.after >= bound)) return [];
    const read = await events.readAll(options);
    let end = read.length;
    while (end > 0 && read[end - 1].position > bound) end -= 1;
    return end === read.length ? read : read.slice(0, end);
  },
  onAppended(listener) {
    appended.on('appended', listener);
    return () => appended.off('appended', listener);
  },
};

const pipeline = new ProjectionPipeline(allProjections(), woken, store, {
  ...options,
  // Logged by the main thread (its logger, its console), with the error as text.
  log: (message, error) => post({ type: 'log', message, error: error === undefined ? undefined : error instanceof Error ? (error.stack ?? error.message) : String(error) }),
});

pipeline.onBatch((batch) => post({ type: 'batch', events: batch.map((e) => ({ streamId: e.streamId, revision: e.revision, type: e.type, position: e.position })) }));
pipeline.onProgress(() => post({ type: 'progress', checkpoints: [...pipeline.checkpoints()], parked: pipeline.parked() }));

async function handle(message: ThreadRequest): Promise<unknown> {
  switch (message.op) {
    case 'init':
      pipeline.fence = message.fence ?? null;
      await pipeline.init();
      return null;
    case 'catchUp':
      return pipeline.catchUp();
    case 'start':
      bound = message.bound;
      pipeline.start();
      return null;
    case 'readParked':
      await pipeline.readParked();
      return null;
    case 'stop':
      await pipeline.stop();
      await events.close();
      await store.close();
      return null;
  }
}

port.on('message', (message: ToPipelineThread) => {
  if ('wake' in message) {
    if (message.wake !== null && bound !== undefined && message.wake > bound) bound = message.wake;
    appended.emit('appended');
    return;
  }
  handle(message).then(
    (result) => post({ type: 'reply', id: message.id, result }),
    (error: unknown) =>
      post({ type: 'reply', id: message.id, error: { name: (error as Error)?.name ?? 'Error', message: String((error as Error)?.message ?? error), code: (error as { code?: string })?.code } }),
  );
});
post({ type: 'ready' });
