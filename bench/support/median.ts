/** The median of a few figures. */
export const middleOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `run` three times, one after another: its figures (fsyncs and the page cache make them swing from run to run). */
export async function threeTimes(run: (i: number) => number | Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < 3; i++) values.push(await run(i));
  return values;
}

/** Each figure is the median of three runs. */
export const median = async (run: (i: number) => number | Promise<number>): Promise<number> => middleOf(await threeTimes(run));
