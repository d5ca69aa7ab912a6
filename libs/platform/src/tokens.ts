/** Nest injection tokens for the ports. */
export const EVENT_STORE = Symbol('EventStore');
export const READ_STORE = Symbol('ReadStore');
export const CONFIG = Symbol('Config');
export { CLOCK } from '#shared/clock.js';
