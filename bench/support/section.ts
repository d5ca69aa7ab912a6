/** One section of `npm run bench`: its name (what `npm run bench -- NAME` and BENCH_ONLY take) and its run. */
export interface Section {
  name: string;
  /** Prints its figures, baselines and targets; throws when its correctness check fails. */
  run(): Promise<void>;
}
