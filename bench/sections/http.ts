import { alternating, compare, CONNECTIONS, load, ROUNDS, WARM_UP_S } from '../support/http-load.js';
import type { Section } from '../support/section.js';
import { startService } from '../support/service.js';
import { target } from '../support/targets.js';

/**
 * 3. Over HTTP (the built service in its own process, autocannon here): creating a product
 *    (command, append, projections, read model) against an authenticated GET of one product.
 */
async function httpBench() {
  console.log(`\n3. HTTP on the embedded default (service in its own process, LOG_LEVEL=warn, ${CONNECTIONS} connections; after a ${WARM_UP_S} s warm-up of each, ${ROUNDS} rounds of 5 s each)`);
  const service = await startService('http-products');
  try {
    const body = JSON.stringify({ name: 'Plan Oro', meta_data: { sku: 'GOLD' } });
    const rounds = await alternating(service, (duration) =>
      load({ url: `${service.url}/v1/products`, method: 'POST', headers: service.headers, body, title: 'create', ...(duration ? { duration } : {}) }),
    );
    const { ratio } = compare(rounds, 'create', 'POST /v1/products (create)');
    target('create-product / authenticated GET throughput', ratio, 0.5);
  } finally {
    await service.stop();
  }
}

export const http: Section = { name: 'http', run: httpBench };
