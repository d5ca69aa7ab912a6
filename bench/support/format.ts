/** A figure rounded to a whole number, with thousands separators. */
export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Bytes as MiB. */
export const MiB = (bytes: number) => `${fmt(bytes / 1048576)} MiB`;
