/** Commits or commands in flight where a section keeps many going (the append section, the billing run's command seeding). */
export const CONCURRENCY = 64;

/** Runs `run` over `items`, `width` at a time. */
export async function bounded<T>(items: T[], width: number, run: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await run(items[i], i);
      }
    }),
  );
}
