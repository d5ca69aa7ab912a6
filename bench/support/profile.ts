import { join } from 'node:path';

/**
 * BENCH_CPU_PROFILE=DIR: a V8 CPU profile of the timed part of a section (e.g. the billing run's
 * runDue alone, without the seeding), written to DIR/<name>.cpuprofile (open in Chrome DevTools).
 */
export async function startCpuProfile(): Promise<{ stop: (name: string) => Promise<void> } | null> {
  const out = process.env.BENCH_CPU_PROFILE;
  if (!out) return null;
  const { Session } = await import('node:inspector/promises');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async (name) => {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
      console.log(`   cpu profile: ${join(out, `${name}.cpuprofile`)}`);
    },
  };
}
