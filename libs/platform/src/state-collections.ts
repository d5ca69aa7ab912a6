import { Injectable } from '@nestjs/common';
import type { CollectionSpec } from '#read-store/read-store.port.js';

/**
 * Read-store collections that are not projections: state the service keeps beside the log (the team's
 * credentials and sessions, the keys' last use). A context registers them when it is constructed; the
 * platform creates them at start, in the same retried step as the projections' collections, so a read
 * store still starting is waited for instead of failing the start. A rebuild never drops them.
 */
@Injectable()
export class StateCollections {
  private readonly specs = new Map<string, CollectionSpec>();

  register(...specs: CollectionSpec[]): void {
    for (const spec of specs) this.specs.set(spec.name, spec);
  }

  all(): CollectionSpec[] {
    return [...this.specs.values()];
  }
}
