/**
 * The projection pipeline's own thread (PROJECTIONS_THREAD=worker, see pipeline-thread.ts): a
 * ProjectionPipeline over every projection, on connections of its own to the two SQLite files.
 * It reads the events, projects them and commits the read models here, off the event loop that
 * serves the requests; the event loop hears from it what it needs (each batch's events in brief,
 * and each projection's checkpoint and parking after every commit) and wakes it on every append.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventEmitter } from 'node:events';
import { SqliteEventStore } from '../../libs/event-store/src/sqlite-event-store.js';
import { SqliteReadStore } from '../../libs/read-store/src/sqlite-read-store.js';
import { allProjections } from '../index.js';
import { ProjectionPipeline, type PipelineOptions, type PipelineSource } from './projection-pipeline.js';
import type { FromPipelineThread, ToPipelineThread } from './pipeline-thread.js';

const { eventsFile, readModelsFile, options } = workerData as { eventsFile: string; readModelsFile: string; options: Omit<PipelineOptions, 'log'> };
const port = parentPort!;
const post = (message: FromPipelineThread) => port.postMessage(message);

const events = new SqliteEventStore(eventsFile, { writer: 'inline' });
const store = new SqliteReadStore(readModelsFile, { writer: 'inline' });
// The WAL is checkpointed beside the commits by the checkpointer of the main thread's writer thread
// (PipelineThread starts it), not inside them: SQLite's auto-checkpoint runs in the commit that crosses
// its threshold and stalls it for 50–150 ms. Kept only as a safety net, at 10,000 pages (40 MB), should
// that checkpointer stop.
await store.writerPragma('wal_autocheckpoint = 10000');

// The pipeline is woken by the main thread (`wake`, sent on every append of this process), and polls
// for other processes' appends as it does on the event loop; reads always ask the file.
const appended = new EventEmitter();
appended.setMaxListeners(0);
const woken: PipelineSource = {
  readAll: (options) => events.readAll(options),
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

async function handle(message: ToPipelineThread): Promise<unknown> {
  switch (message.op) {
    case 'init':
      await pipeline.init();
      return null;
    case 'catchUp':
      return pipeline.catchUp();
    case 'start':
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

port.on('message', (message: ToPipelineThread | 'wake') => {
  if (message === 'wake') {
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
